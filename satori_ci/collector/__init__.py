"""How often a `satori-ci` process (the command, the action) runs the cyclic garbage collector.

A run builds many small acyclic objects that reference counting frees; the collector's default passes (one per 700
new container objects) walk them and find next to nothing: 0.15 s of the 2 s `infer` takes on 6,000 fields, 0.08 s
of the action's 1 s of imports. mypy runs it less often for the same reason.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 100)
"""`gc.set_threshold`: a young-generation pass after 50,000 new container objects, older passes rarer in proportion
(the test workers use them too, `tests/conftest.py`)."""


def run_less_often() -> None:
    """This process's collector runs at `THRESHOLDS`."""
    gc.set_threshold(*THRESHOLDS)
