"""`python -m satori_ci`."""

from satori_ci.cli import entry

entry()
