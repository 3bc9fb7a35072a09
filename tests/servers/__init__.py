"""Local stand-ins for the services the project talks to, for tests that never leave the machine."""
