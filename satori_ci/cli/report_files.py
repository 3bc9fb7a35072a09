"""`--junit FILE` and `--sarif FILE` of `check`, `run`, `verify` and `merge`: the report in the formats CI tools
read, written all or nothing wherever the user names (a path they typed is their own choice)."""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from pathlib import Path

from satori_ci.check.conclude import located, wanted_locations
from satori_ci.errors import UsageError
from satori_ci.report.junit import junit_xml
from satori_ci.report.model import CheckReport, FailOn, SpecCheck
from satori_ci.report.sarif import sarif_log
from satori_ci.run.model import RunResult
from satori_ci.spec import Spec


def add_report_file_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--junit", metavar="FILE",
                        help="also write the report as JUnit XML, for a CI test reporter: a test case per violated "
                             "oracle (failure when it fails the check), per operation (skipped when not reached) "
                             "and per staging check (error when staging could not be asked)")
    parser.add_argument("--sarif", metavar="FILE",
                        help="also write the violations as SARIF 2.1.0, on the spec lines of the violated fields "
                             "(github/codeql-action/upload-sarif shows them in code scanning)")


def write_file(path: str, text: str) -> None:
    """`text` into `path`, all or nothing (a temporary file next to it, then renamed); UsageError when it cannot."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise UsageError(f"{path}: cannot write ({exc.strerror})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_report_files(args: argparse.Namespace, report: CheckReport) -> None:
    """The JUnit and SARIF files the options name (none when neither is given)."""
    if getattr(args, "junit", None):
        write_file(args.junit, junit_xml(report))
    if getattr(args, "sarif", None):
        write_file(args.sarif, sarif_log(report))


def run_report(spec: Spec, result: RunResult, oracle_file: str) -> CheckReport:
    """The report of a `run` or `verify` (no base, no inference): the run, and the violated fields located in the
    spec (paths relative to the repository the spec is in, as `check` names them); every violation fails, as the
    commands' exit code says."""
    locations = {key: where for _, key, where in located(spec, wanted_locations(None, None, result))}
    check = SpecCheck(spec=spec.file, head_source=spec.source, base_source=None, oracle_file=oracle_file,
                      field_diff=None, oracle_diff=None, inference=None, oracles_enabled=result.oracles_enabled,
                      run=result, locations=locations)
    return CheckReport((check,), FailOn.VIOLATIONS)
