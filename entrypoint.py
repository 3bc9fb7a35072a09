"""The Docker action's entry point: read the GitHub event and inputs, run the pipeline, report.

The pull-request pipeline is not wired yet; this entry point says so and exits with the input-error code.
"""

from __future__ import annotations

import sys

from satori_ci.exit_codes import ExitCode


def main() -> int:
    print("::error::satori-ci: the pull-request pipeline is not available in this version yet")
    return ExitCode.INPUT_ERROR


if __name__ == "__main__":
    sys.exit(main())
