"""The oracles stage."""
