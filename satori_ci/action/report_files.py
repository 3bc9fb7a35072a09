"""The `junit` and `sarif` inputs: the report as JUnit XML and SARIF 2.1.0, written inside the repository (the
inputs are relative paths, checked when read; a symlink that leads outside is refused here), and the
`junit-file` / `sarif-file` outputs naming them (workspace-relative; empty when not asked for)."""

from __future__ import annotations

from pathlib import PurePosixPath

from satori_ci.check.workspace import write_atomically
from satori_ci.github.context import ActionContext
from satori_ci.report.junit import junit_xml
from satori_ci.report.model import CheckReport
from satori_ci.report.sarif import sarif_log

OUTPUTS = ("junit-file", "sarif-file")


def write_report_files(ctx: ActionContext, report: CheckReport) -> dict[str, str]:
    """Write the files the inputs ask for; the outputs that name them (`""` for one not asked for)."""
    out = dict.fromkeys(OUTPUTS, "")
    wanted = (("junit-file", ctx.inputs.junit, junit_xml), ("sarif-file", ctx.inputs.sarif, sarif_log))
    for output, path, render in wanted:
        if path:
            write_atomically(ctx.workspace / path, render(report))
            out[output] = PurePosixPath(path).as_posix()
    return out
