"""What a lab is (`lab`, `params`, `figures`, `live`), the units, and the list (`entries`)."""
