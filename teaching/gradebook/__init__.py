"""A class's gradebook: the table (`book`), its cells' HTML (`cells`), its plain values for
the CSV (`plain_table`), its rendered copy per class version (`cache`), what makes that copy
stale (`staleness`), and a student's hand-in (`hand_in`)."""
