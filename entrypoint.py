"""The Docker action's entry point (the Dockerfile runs this file): the action itself is `satori_ci.action`."""

from __future__ import annotations

import sys

from satori_ci import collector

if __name__ == "__main__":
    collector.run_less_often()  # before the action's imports: a second of new objects the collector would walk
    from satori_ci.action.main import main

    sys.exit(main())
