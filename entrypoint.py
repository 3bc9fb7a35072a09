"""The Docker action's entry point (the Dockerfile runs this file): the action itself is `satori_ci.action`."""

from __future__ import annotations

import sys

from satori_ci.action.main import main

if __name__ == "__main__":
    sys.exit(main())
