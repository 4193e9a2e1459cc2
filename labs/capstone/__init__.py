"""The capstone's before/after report and operator view: all of that feature lives here."""
