"""The github stage."""
