"""What the entry points (the CLI and the action) show while a run goes on: the heartbeat."""
