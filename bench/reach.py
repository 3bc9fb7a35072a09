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
header values are never printed). Oracles are inferred in-process with the rules backend.

Printed per target and run: GET operations (with a 2XX JSON response in the spec) answered with a checked
2XX, enabled oracles exercised, requests sent, unsafe (not GET/HEAD) requests sent (in the run's results, and
at the server when the bench owns it), 5XX answers, whether the app's data is intact; then why the GET
operations the chaining + values run did not reach were not reached, and the goal check.

    python3 bench/reach.py [--spec FILE --url URL [--header "Name: value"]... [--value name=value]...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from satori_ci.cli import main as cli_main
from satori_ci.demo import DemoBookshop, StagingServer, example_specs
from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import Oracle
from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.plan.expand import build_requests
from satori_ci.plan.model import SAFE_METHODS
from satori_ci.plan.requests import RequestSet
from satori_ci.run.model import RunResult
from satori_ci.run.native import run_native
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import Spec, SpecError, load_spec
from tests.servers.resources_app import CONFIG_VALUES, SPEC_PATH, ResourcesApp

GOAL_GET = 80.0
GOAL_ORACLES = 70.0
MODES = ("placeholders", "chaining", "chaining + values")


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


def collections(target: Target) -> Iterator[tuple[str, RequestSet]]:
    """The three collections of MODES (before the unsafe requests are dropped)."""
    spec, oracles, url = target.spec, target.oracles, target.base_url
    yield MODES[0], build_requests(spec, oracles, url, ())
    yield MODES[1], build_requests(spec, oracles, url, (), plan_requests(spec, PlanSettings()))
    yield MODES[2], build_requests(spec, oracles, url, (), plan_requests(spec, PlanSettings(values=target.values)))


def get_operations(spec: Spec) -> list[str]:
    """`GET /path` of every GET operation with a 2XX JSON response in the spec."""
    return [f"{o.method} {o.path}" for o in spec.operations if o.method == "GET" and o.statuses]


def run_mode(target: Target, mode: str, full: RequestSet) -> Row:
    collection, dropped = safe_only(full)
    target.reset()
    config = RunConfig(target.base_url, timeout_s=target.timeout_s, retries=0, environ=target.environ,
                       headers=target.headers)
    result = run_native(collection, config)
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
    return Row(mode, sum(1 for g in gets if g in reached), len(gets), result.oracles_exercised,
               enabled, result.requests, unsafe, len(result.server_errors), intact, result,
               collection, dropped)


def measure(target: Target) -> list[Row]:
    rows = [run_mode(target, mode, full) for mode, full in collections(target)]
    target.reset()
    return rows


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
    args = parser.parse_args(argv)
    if (args.spec is None) != (args.url is None):
        parser.error("--spec and --url go together")
    if args.url is not None and not args.url.startswith(("http://", "https://")):
        parser.error("--url must start with http:// or https://")
    if args.spec is None and (args.header or args.value):
        parser.error("--header and --value need --spec and --url")

    results: list[tuple[Target, list[Row]]] = []
    with tempfile.TemporaryDirectory(prefix="satori-reach-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        bookshop_spec = example_specs()[1]
        server = stack.enter_context(StagingServer())
        DemoBookshop(server)
        app = stack.enter_context(ResourcesApp())
        makers: list[Callable[[], Target]] = [
            lambda: Target("bookshop", load_spec(str(bookshop_spec)), infer_oracles(bookshop_spec, folder),
                           server.base_url, server=server),
            lambda: Target("resources app", load_spec(str(SPEC_PATH)), infer_oracles(SPEC_PATH, folder),
                           app.base_url, headers=(("Authorization", f"Bearer {ResourcesApp.TOKEN}"),),
                           values=tuple(CONFIG_VALUES.items()), server=app.server, app=app),
        ]
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
            results.append((target, measure(target)))
    print_table(results)
    print_details(results)
    print_goal(results)
    return 0


def _credentials() -> dict[str, str]:
    """The `SATORI_AUTH_*` variables of the environment (as `satori-ci run` reads them), nothing else."""
    return {k: v for k, v in os.environ.items() if k.startswith("SATORI_AUTH_")}


if __name__ == "__main__":
    sys.exit(main())
