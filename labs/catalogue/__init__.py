"""What a lab is (`lab`, `advice`), the units, and the list of labs (`entries`)."""
