"""The report stage."""
