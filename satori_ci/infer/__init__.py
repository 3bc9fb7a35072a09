"""The infer stage."""
