"""Reach: how much of a real API a check reaches (GET operations answered 2XX, oracles exercised, unsafe requests).

Each target is run three ways with the native runner:

- placeholders: the old behaviour. No request plan (every operation with its sample values, path parameters
  filled with typed placeholders), no chaining, no config values. Only its GET/HEAD requests are sent: the
  unsafe requests the plan-less collection holds are counted, never sent.
- chaining: the default request plan (`PlanSettings()`): list responses give the detail operations their ids.
- chaining + values: the plan with the target's config values (`tenant_id=acme`).

Targets: the bundled bookshop example (satori_ci/examples/bookshop/openapi.v2.yaml on `satori_ci.demo.DemoBookshop`),
the resources app of the tests (tests/servers/resources_app.py: ten resources, bearer auth, mutations; its data
is checked after every run), and optionally a server of yours (`--spec` and `--url`; only GET/HEAD are sent,
header values are never printed; `--no-builtin` leaves the first two out). Oracles are inferred in-process with the
rules backend.

Printed per target and run: GET operations (with a 2XX JSON response in the spec) answered with a checked
2XX, enabled oracles exercised, requests sent, unsafe (not GET/HEAD) requests sent (in the run's results, and
at the server when the bench owns it), 5XX answers, whether the app's data is intact; then why the GET
operations the chaining + values run did not reach were not reached, and the goal check.

Then the ceiling (`bench/ceiling.py`, a crawler outside satori's request plan): every GET operation sent with
every value the seeded server has, recursively, GET requests only. A second table gives the ceiling's GET
operations reached, oracles exercised, requests and seconds, and for each run of `RUNS` measured against it
(`check` is the chaining + values run) its reach and exercised oracles as a share of the ceiling's
(reached-and-in-ceiling / ceiling), what it reached beyond the ceiling, its requests, seconds (and their ratio to
the check's) and whether the ceiling goals hold (>= 95% of the ceiling's GET operations, >= 90% of its oracles,
0 unsafe). Oracles are counted alike on both sides: the set of enabled oracles that met a value in at least one
checked response of their operation (the runners' per-operation union; the bench records which ones).

    python3 bench/reach.py [--no-builtin] [--ceiling-cap N]
                           [--spec FILE --url URL [--header "Name: value"]... [--value name=value]...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ceiling import GLOBAL_CAP, Ceiling, crawl
from satori_ci.cli import main as cli_main
from satori_ci.demo import DemoBookshop, StagingServer, example_specs
from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import Oracle
from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.plan.expand import build_requests
from satori_ci.plan.model import SAFE_METHODS
from satori_ci.plan.requests import RequestSet
from satori_ci.run import native
from satori_ci.run.model import RunResult
from satori_ci.run.native import run_native
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import Spec, SpecError, load_spec
from tests.servers.resources_app import CONFIG_VALUES, SPEC_PATH, ResourcesApp

GOAL_GET = 80.0
GOAL_ORACLES = 70.0
GOAL_CEILING_GET = 95.0
GOAL_CEILING_ORACLES = 90.0
CHECK = "check"
"""The run the others are timed against in the ceiling table."""


# -- targets -------------------------------------------------------------------------------------------


@dataclass
class Target:
    """One API to reach: its spec and oracles, where it runs, what the config would give."""

    name: str
    spec: Spec
    oracles: list[Oracle]
    base_url: str
    headers: tuple[tuple[str, str], ...] = ()
    """Sent with every request; values are never printed."""
    values: tuple[tuple[str, str], ...] = ()
    environ: Mapping[str, str] = field(default_factory=dict)
    server: StagingServer | None = None
    """The server when the bench owns it (requests are counted at the server too)."""
    app: ResourcesApp | None = None
    """The resources app (its data is checked after each run)."""
    timeout_s: float = 10.0

    def reset(self) -> None:
        if self.app is not None:
            self.app.reset()
        elif self.server is not None:
            self.server.clear()


def infer_oracles(spec_path: Path, folder: Path) -> list[Oracle]:
    """The enabled oracles `satori-ci infer` (rules backend) writes for the spec."""
    out = folder / (spec_path.stem + ".oracles.yaml")
    code = cli_main(["infer", str(spec_path), "--oracles", str(out), "--backend", "rules", "--quiet"])
    if code != 0:
        raise SystemExit(f"satori-ci infer {spec_path} exited with {code}")
    return load_oracle_file(out.read_text(encoding="utf-8"), str(out)).enabled_oracles()


# -- the runs ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One way to build a target's requests; `ceiling` names it in the ceiling table (None: not measured there)."""

    name: str
    build: Callable[[Target], RequestSet]
    ceiling: str | None = None


RUNS: tuple[Run, ...] = (
    Run("placeholders", lambda t: build_requests(t.spec, t.oracles, t.base_url, ())),
    Run("chaining", lambda t: build_requests(t.spec, t.oracles, t.base_url, (), plan_requests(t.spec, PlanSettings()))),
    Run("chaining + values", lambda t: build_requests(t.spec, t.oracles, t.base_url, (),
                                                      plan_requests(t.spec, PlanSettings(values=t.values))), CHECK),
)
"""Every run, in order (the last one is the one whose misses are explained); add one here to measure it."""
MODES = tuple(r.name for r in RUNS)


# -- one run -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    mode: str
    get_reached: int
    get_total: int
    exercised: int
    enabled: int
    sent: int
    unsafe_sent: int
    """Requests whose method is not GET/HEAD: in the run's results, or at the server when it counts more."""
    server_errors: int
    intact: bool | None
    result: RunResult
    collection: RequestSet
    withheld: Counter[str] = field(default_factory=Counter)
    """Unsafe requests (by method) the collection held and the bench did not send (it keeps only GET/HEAD)."""
    exercised_set: frozenset[Oracle] | None = None
    """The oracles exercised (None when the runner could not be watched: counts are compared then)."""
    ceiling_name: str | None = None

    @property
    def get_share(self) -> float:
        return 100 * self.get_reached / self.get_total if self.get_total else 0.0

    @property
    def oracle_share(self) -> float:
        return 100 * self.exercised / self.enabled if self.enabled else 0.0

    @property
    def goal_met(self) -> bool:
        return (self.get_share >= GOAL_GET and self.oracle_share >= GOAL_ORACLES and self.unsafe_sent == 0
                and self.intact is not False)


def safe_only(collection: RequestSet) -> tuple[RequestSet, Counter[str]]:
    """The requests with only the GET/HEAD ones, and the unsafe requests it held (by method)."""
    dropped: Counter[str] = Counter(i.method for i in collection.requests() if i.method not in SAFE_METHODS)
    groups = tuple(replace(g, requests=kept) for g in collection.groups
                   if (kept := tuple(i for i in g.requests if i.method in SAFE_METHODS)))
    return replace(collection, groups=groups), dropped


def collections(target: Target) -> Iterator[tuple[Run, RequestSet]]:
    """The collections of RUNS (before the unsafe requests are dropped)."""
    for run in RUNS:
        yield run, run.build(target)


@contextmanager
def watching_exercised() -> Iterator[set[Oracle] | None]:
    """The oracles the native runner finds exercised while inside (None when its checker cannot be watched)."""
    original = getattr(native, "checked_lines", None)
    if original is None:
        yield None
        return
    seen: set[Oracle] = set()

    def watched(oracles: Any, body: Any, null_like: Any) -> Any:
        lines, exercised = original(oracles, body, null_like)
        seen.update(oracles[i] for i in exercised)
        return lines, exercised

    native.checked_lines = watched  # type: ignore[attr-defined]
    try:
        yield seen
    finally:
        native.checked_lines = original  # type: ignore[attr-defined]


def get_operations(spec: Spec) -> list[str]:
    """`GET /path` of every GET operation with a 2XX JSON response in the spec."""
    return [f"{o.method} {o.path}" for o in spec.operations if o.method == "GET" and o.statuses]


def run_mode(target: Target, run: Run, full: RequestSet) -> Row:
    collection, dropped = safe_only(full)
    target.reset()
    config = RunConfig(target.base_url, timeout_s=target.timeout_s, retries=0, environ=target.environ,
                       headers=target.headers)
    with watching_exercised() as seen:
        result = run_native(collection, config)
    if seen is not None and len(seen) != result.oracles_exercised:
        seen = None  # the watch and the run disagree: compare the run's own counts
    gets = get_operations(target.spec)
    reached = {c.label for c in result.coverage if c.checked > 0}
    unsafe = sum(c.sent for c in result.coverage if c.method not in SAFE_METHODS)
    if target.server is not None:
        unsafe = max(unsafe, sum(1 for r in list(target.server.received) if r.method not in SAFE_METHODS))
    intact = None
    if target.app is not None:
        intact = target.app.intact() and not target.app.mutations
    # the same denominator in every mode: the enabled oracles of the GET/HEAD operations
    enabled = sum(c.enabled for c in result.coverage if c.method in SAFE_METHODS)
    return Row(run.name, sum(1 for g in gets if g in reached), len(gets), result.oracles_exercised,
               enabled, result.requests, unsafe, len(result.server_errors), intact, result,
               collection, dropped, None if seen is None else frozenset(seen), run.ceiling)


def measure(target: Target) -> list[Row]:
    rows = [run_mode(target, run, full) for run, full in collections(target)]
    target.reset()
    return rows


# -- the ceiling ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CeilingRun:
    """The ceiling of one target, with the unsafe requests the server saw (when the bench owns it)."""

    ceiling: Ceiling
    unsafe: int
    intact: bool | None


def measure_ceiling(target: Target, cap: int) -> CeilingRun:
    target.reset()
    ceiling = crawl(target.spec, target.oracles, target.base_url, headers=target.headers, values=target.values,
                    environ=target.environ, timeout_s=target.timeout_s, global_cap=cap)
    unsafe = 0
    if target.server is not None:
        unsafe = sum(1 for r in list(target.server.received) if r.method not in SAFE_METHODS)
    intact = None if target.app is None else target.app.intact() and not target.app.mutations
    target.reset()
    return CeilingRun(ceiling, unsafe, intact)


@dataclass(frozen=True)
class Against:
    """One run measured against the ceiling."""

    row: Row
    get_in: int
    get_beyond: tuple[str, ...]
    oracles_in: int
    oracles_beyond: int
    ceiling: Ceiling

    @property
    def get_share(self) -> float:
        whole = len(self.ceiling.reached)
        return 100 * self.get_in / whole if whole else 100.0

    @property
    def oracle_share(self) -> float:
        whole = len(self.ceiling.exercised)
        return 100 * self.oracles_in / whole if whole else 100.0

    @property
    def goal_met(self) -> bool:
        return (self.get_share >= GOAL_CEILING_GET and self.oracle_share >= GOAL_CEILING_ORACLES
                and self.row.unsafe_sent == 0 and self.row.intact is not False)


def against(row: Row, ceiling: Ceiling) -> Against:
    """A run's reach and exercised oracles within the ceiling's, and what it got beyond it."""
    reached = {c.label for c in row.result.coverage if c.checked > 0 and c.method == "GET"}
    if row.exercised_set is not None:
        inside = len(row.exercised_set & ceiling.exercised)
        beyond = len(row.exercised_set - ceiling.exercised)
    else:  # per operation, the smaller of the two counts (both are per-operation unions)
        by_op = {label: len(op.exercised) for label, op in ceiling.operations.items()}
        inside = sum(min(c.exercised, by_op.get(c.label, 0)) for c in row.result.coverage)
        beyond = sum(max(0, c.exercised - by_op.get(c.label, 0)) for c in row.result.coverage)
    return Against(row, len(reached & ceiling.reached), tuple(sorted(reached - ceiling.reached)), inside, beyond,
                   ceiling)


# -- printing ------------------------------------------------------------------------------------------


def _pct(share: float, total: int) -> str:
    return f"{share:5.1f}%" if total else "     -"


def _ratio(part: int, whole: int, width: int) -> str:
    return f"{f'{part}/{whole}':>{width}} {_pct(100 * part / whole if whole else 0.0, whole)}"


def print_table(results: list[tuple[Target, list[Row]]]) -> None:
    width = max([len("target"), *(len(t.name) for t, _ in results)])
    print(f"{'target':<{width}} {'run':<18} {'GET reached':>16} {'oracles exercised':>18} {'sent':>5} "
          f"{'unsafe':>6} {'withheld':>8} {'5XX':>4} {'intact':>6}")
    for target, rows in results:
        for row in rows:
            intact = "-" if row.intact is None else ("yes" if row.intact else "NO")
            print(f"{target.name:<{width}} {row.mode:<18} {_ratio(row.get_reached, row.get_total, 9)} "
                  f"{_ratio(row.exercised, row.enabled, 11)} {row.sent:>5} {row.unsafe_sent:>6} "
                  f"{sum(row.withheld.values()):>8} {row.server_errors:>4} {intact:>6}")


def _methods(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {m}" for m, n in sorted(counts.items()))


def _path_of(url: str, base_url: str) -> str:
    return url[len(base_url.rstrip("/")):] if url.startswith(base_url.rstrip("/")) else url


def why_not_reached(target: Target, row: Row) -> list[str]:
    """One line per GET operation the run did not reach with a checked 2XX, with what the run says about it."""
    reached = {c.label for c in row.result.coverage if c.checked > 0}
    reasons: dict[str, list[str]] = {}
    for skip in row.result.skipped:
        reasons.setdefault(skip.label, []).append(f"not sent ({skip.kind.value}): {skip.detail}")

    def label_of(item_id: str) -> str | None:
        item = row.collection.request(item_id)
        return item.label if item is not None else None

    for problem in row.result.unchecked:
        label = label_of(problem.request.item)
        if label is not None:
            reasons.setdefault(label, []).append(f"{_path_of(problem.request.url, target.base_url)}: "
                                                 f"{problem.detail}")
    for error in row.result.server_errors:
        label = label_of(error.request.item)
        if label is not None:
            reasons.setdefault(label, []).append(f"{_path_of(error.request.url, target.base_url)}: "
                                                 f"HTTP {error.status}")
    for infra in row.result.infrastructure:
        label = label_of(infra.request.item)
        if label is not None:
            reasons.setdefault(label, []).append(f"{_path_of(infra.request.url, target.base_url)}: "
                                                 f"{infra.kind.value}")
    lines = []
    for label in get_operations(target.spec):
        if label not in reached:
            found = list(dict.fromkeys(reasons.get(label, ["not in the collection"])))
            more = f" (+{len(found) - 2} more)" if len(found) > 2 else ""
            lines.append(f"    {label}: {'; '.join(found[:2])}{more}")
    return lines


def unexercised_on_unsafe(row: Row) -> int:
    """Enabled oracles of operations the plan cannot send without an opt-in (not GET/HEAD)."""
    return sum(c.enabled for c in row.result.coverage if c.method not in SAFE_METHODS)


def print_details(results: list[tuple[Target, list[Row]]]) -> None:
    for target, rows in results:
        base, last = rows[0], rows[-1]
        print(f"\n{target.name}:")
        if base.withheld:
            print(f"  {base.mode}: the plan-less collection would have sent {sum(base.withheld.values())} unsafe "
                  f"requests ({_methods(base.withheld)}); the bench withheld them")
        elsewhere = [o for o in target.spec.operations if o.method not in SAFE_METHODS and not o.statuses]
        if elsewhere:
            print(f"  {len(elsewhere)} more unsafe operations have no 2XX JSON response in the spec (in no "
                  f"collection): {', '.join(f'{o.method} {o.path}' for o in elsewhere)}")
        for row in rows[1:]:
            if row.withheld:  # the plan asks for no unsafe request without an opt-in: this is a bug
                print(f"  {row.mode}: the plan's collection held unsafe requests ({_methods(row.withheld)}); "
                      "the bench withheld them")
        on_unsafe = unexercised_on_unsafe(last)
        if on_unsafe:
            print(f"  {on_unsafe} more enabled oracles belong to operations that are not GET/HEAD (never sent "
                  "without an opt-in; not counted above)")
        if target.headers:
            print(f"  headers sent: {', '.join(name for name, _ in target.headers)} (values not shown)")
        if target.values:
            print(f"  config values: {', '.join(f'{k}={v}' for k, v in target.values)}")
        lines = why_not_reached(target, last)
        if lines:
            print(f"  GET operations not reached by {last.mode}:")
            for line in lines:
                print(line)
        else:
            print(f"  every GET operation was reached by {last.mode}")
        reached = {c.label for c in last.result.coverage if c.checked > 0}
        for error in last.result.server_errors:
            item = last.collection.request(error.request.item)
            if item is None or item.label not in reached:  # already given as the reason above
                continue
            print(f"  5XX: {error.request.method} {_path_of(error.request.url, target.base_url)} -> "
                  f"HTTP {error.status}")


def print_goal(results: list[tuple[Target, list[Row]]]) -> None:
    print()
    for target, rows in results:
        last = rows[-1]
        verdict = "met" if last.goal_met else "not met"
        print(f"{target.name}: goal (>= {GOAL_GET:.0f}% GET operations reached, >= {GOAL_ORACLES:.0f}% oracles "
              f"exercised, 0 unsafe): {verdict} ({last.get_share:.1f}% GET, {last.oracle_share:.1f}% oracles, "
              f"{last.unsafe_sent} unsafe)")


def print_ceiling(results: list[tuple[Target, list[Row], CeilingRun]]) -> None:
    """The ceiling table: each target's ceiling, then its measured runs as shares of it."""
    width = max([len("target"), *(len(t.name) for t, _, _ in results)])
    runs = [r.ceiling for r in RUNS if r.ceiling]
    run_width = max([len("ceiling"), *(len(n) for n in runs)])
    print(f"\n{'target':<{width}} {'run':<{run_width}} {'GET reached':>16} {'oracles exercised':>18} "
          f"{'beyond':>7} {'sent':>6} {'seconds':>8} {'x check':>7} {'unsafe':>6} {'goal':>7}")
    for target, rows, top in results:
        ceiling = top.ceiling
        gets = len(get_operations(target.spec))
        print(f"{target.name:<{width}} {'ceiling':<{run_width}} {_ratio(len(ceiling.reached), gets, 9)} "
              f"{_ratio(len(ceiling.exercised), ceiling.enabled, 11)} {'-':>7} {ceiling.requests:>6} "
              f"{ceiling.seconds:>8.2f} {'-':>7} {top.unsafe:>6} {'-':>7}")
        measured = [against(row, ceiling) for row in rows if row.ceiling_name]
        check = next((m.row.result.seconds for m in measured if m.row.ceiling_name == CHECK), None)
        for m in measured:
            ratio = f"{m.row.result.seconds / check:.2f}" if check else "-"
            beyond = f"{len(m.get_beyond)}/{m.oracles_beyond}"
            print(f"{target.name:<{width}} {m.row.ceiling_name:<{run_width}} "
                  f"{_ratio(m.get_in, len(ceiling.reached), 9)} {_ratio(m.oracles_in, len(ceiling.exercised), 11)} "
                  f"{beyond:>7} {m.row.sent:>6} {m.row.result.seconds:>8.2f} {ratio:>7} {m.row.unsafe_sent:>6} "
                  f"{'met' if m.goal_met else 'not met':>7}")
    print(f"(shares are of the ceiling's; beyond: GET operations/oracles a run reached that the ceiling did not; "
          f"goal: >= {GOAL_CEILING_GET:.0f}% GET, >= {GOAL_CEILING_ORACLES:.0f}% oracles, 0 unsafe)")
    for target, rows, top in results:
        print_ceiling_details(target, rows, top)


def print_ceiling_details(target: Target, rows: list[Row], top: CeilingRun) -> None:
    ceiling = top.ceiling
    print(f"\n{target.name} ceiling: {ceiling.rounds} rounds")
    for op in ceiling.operations.values():
        if not op.reached:
            print(f"  not reached by the ceiling: {op.label}: {op.why_not()}")
    for note in ceiling.cap_notes():
        print(f"  {note}")
    if top.intact is False:
        print("  the app's data changed during the ceiling's crawl")
    for row in rows:
        if not row.ceiling_name:
            continue
        m = against(row, ceiling)
        if m.get_beyond:
            print(f"  {row.ceiling_name} reached beyond the ceiling: {', '.join(m.get_beyond)}")
        missed = sorted(ceiling.reached - {c.label for c in row.result.coverage if c.checked > 0})
        if missed:
            print(f"  {row.ceiling_name} did not reach what the ceiling did: {', '.join(missed)}")
        if row.exercised_set is None:
            print(f"  {row.ceiling_name}: the runner's exercised oracles could not be watched; per-operation counts "
                  "were compared")


# -- main ----------------------------------------------------------------------------------------------


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError("a header is 'Name: value'")  # never echo the value
    return name.strip(), value.strip()


def _value(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"a value is name=value, not {text!r}")
    return name.strip(), value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--spec", type=Path, help="the OpenAPI spec of a server of yours (with --url)")
    parser.add_argument("--url", help="where that server runs (only GET/HEAD requests are sent)")
    parser.add_argument("--header", type=_header, action="append", default=[], metavar="'NAME: VALUE'",
                        help="sent with every request to --url (the value is never printed)")
    parser.add_argument("--value", type=_value, action="append", default=[], metavar="NAME=VALUE",
                        help="a config value for the chaining + values run against --url")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request to --url (default 10)")
    parser.add_argument("--no-builtin", action="store_true", help="leave out the bookshop and the resources app")
    parser.add_argument("--ceiling-cap", type=int, default=GLOBAL_CAP, metavar="N",
                        help=f"requests the ceiling sends per target at most (default {GLOBAL_CAP})")
    args = parser.parse_args(argv)
    if (args.spec is None) != (args.url is None):
        parser.error("--spec and --url go together")
    if args.url is not None and not args.url.startswith(("http://", "https://")):
        parser.error("--url must start with http:// or https://")
    if args.spec is None and (args.header or args.value):
        parser.error("--header and --value need --spec and --url")
    if args.no_builtin and args.spec is None:
        parser.error("--no-builtin needs --spec and --url")
    if args.ceiling_cap < 1:
        parser.error("--ceiling-cap is at least 1")

    results: list[tuple[Target, list[Row], CeilingRun]] = []
    with tempfile.TemporaryDirectory(prefix="satori-reach-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        makers: list[Callable[[], Target]] = [] if args.no_builtin else builtin_targets(stack, folder)
        if args.spec is not None:
            spec_path: Path = args.spec
            makers.append(lambda: Target(spec_path.name, load_spec(str(spec_path)), infer_oracles(spec_path, folder),
                                         args.url, headers=tuple(args.header), values=tuple(args.value),
                                         environ=_credentials(), timeout_s=args.timeout))
        for make in makers:
            try:
                target = make()
            except SpecError as exc:
                print(f"reach: {exc}", file=sys.stderr)
                return 2
            results.append((target, measure(target), measure_ceiling(target, args.ceiling_cap)))
    runs = [(target, rows) for target, rows, _ in results]
    print_table(runs)
    print_details(runs)
    print_goal(runs)
    print_ceiling(results)
    return 0


def builtin_targets(stack: ExitStack, folder: Path) -> list[Callable[[], Target]]:
    """The bookshop demo and the resources app, their servers started (and stopped with `stack`)."""
    bookshop_spec = example_specs()[1]
    server = stack.enter_context(StagingServer())
    DemoBookshop(server)
    app = stack.enter_context(ResourcesApp())
    return [
        lambda: Target("bookshop", load_spec(str(bookshop_spec)), infer_oracles(bookshop_spec, folder),
                       server.base_url, server=server),
        lambda: Target("resources app", load_spec(str(SPEC_PATH)), infer_oracles(SPEC_PATH, folder),
                       app.base_url, headers=(("Authorization", f"Bearer {ResourcesApp.TOKEN}"),),
                       values=tuple(CONFIG_VALUES.items()), server=app.server, app=app),
    ]


def _credentials() -> dict[str, str]:
    """The `SATORI_AUTH_*` variables of the environment (as `satori-ci run` reads them), nothing else."""
    return {k: v for k, v in os.environ.items() if k.startswith("SATORI_AUTH_")}


if __name__ == "__main__":
    sys.exit(main())
