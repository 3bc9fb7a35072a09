"""The options that decide what is sent, shared by `collection`, `run` and `check`: headers, values, opt-ins."""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from satori_ci.check.workspace import load_team, team_secrets
from satori_ci.config import SpecConfig
from satori_ci.config.settings import BudgetFlags
from satori_ci.errors import UsageError
from satori_ci.plan import PlanSettings
from satori_ci.postman.read import TeamCollection
from satori_ci.redaction import current

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_base_url(url: str, what: str) -> None:
    """A server URL: http(s), without a query, fragment or credentials (those go in headers), never echoed
    back whole (it may carry a secret)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{what} must start with http:// or https://")
    if parts.query or parts.fragment or "@" in parts.netloc:
        raise UsageError(f"{what} must not carry a query string, a fragment or credentials: send them with "
                         "--header (its value is never printed)")


def add_request_options(parser: argparse.ArgumentParser, sends: bool = True) -> None:
    """The flags; `sends` adds those that only matter when requests go out (`run`, `check`)."""
    parser.add_argument("--header", action="append", default=[], metavar='"NAME: VALUE"',
                        help="send this header with every request (repeatable; the value is never printed)")
    parser.add_argument("--header-env", action="append", default=[], metavar="NAME=VARIABLE",
                        help="send header NAME with the value of environment variable VARIABLE (repeatable)")
    parser.add_argument("--value", action="append", default=[], metavar="PARAM=VALUE",
                        help="the value of a parameter of that name, in every operation (repeatable; wins over "
                             "the config's requests.values)")
    parser.add_argument("--unsafe", action="append", default=[], metavar='"METHOD /path"',
                        help="also send this non-GET operation (a glob; repeatable). Only GET and HEAD are sent "
                             "otherwise")
    parser.add_argument("--chain", type=int, metavar="N",
                        help="ids taken from a list response for each detail operation (default 3; 0: off)")
    parser.add_argument("--postman-collection", metavar="FILE",
                        help="your own Postman collection (v2.1): its requests that call a spec operation get the "
                             "assertions, everything else (auth, scripts, variables, order) is kept")
    parser.add_argument("--postman-environment", metavar="FILE", help="the Postman environment file it runs with")
    if sends:
        parser.add_argument("--min-exercised", type=int, metavar="N",
                            help="exit 3 when fewer than N enabled oracles met a value (default 1)")
        parser.add_argument("--budget", type=int, metavar="N",
                            help="send at most N requests, every operation once before any twice (default 1000)")
        parser.add_argument("--time-budget", type=float, metavar="SECONDS",
                            help="stop sending after this many seconds (default 600)")
        parser.add_argument("--rate", type=float, metavar="PER_SECOND",
                            help="send at most this many requests per second (default: no limit)")
        parser.add_argument("--concurrency", type=int, metavar="N", help="requests in flight at once (default 1)")


@dataclass(frozen=True)
class RequestInputs:
    """What the flags and the config say about the requests, resolved from the environment."""

    headers: tuple[tuple[str, str], ...]
    """(header, value) for every request."""
    header_references: tuple[tuple[str, str], ...]
    """(header, environment variable) for a collection written to a file (values are never written)."""
    plan: PlanSettings
    min_exercised: int
    fail_on_server_errors: bool
    notes: tuple[str, ...]
    team: TeamCollection | None = None


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not _HEADER_NAME.match(name):
        raise UsageError('--header takes "NAME: VALUE" (a header name, a colon, the value); the value given '
                         'is not shown')
    return name, value.strip()


def _header_env(text: str) -> tuple[str, str]:
    name, sep, variable = text.partition("=")
    if not sep or not _HEADER_NAME.match(name.strip()) or not _ENV_NAME.match(variable.strip()):
        raise UsageError(f"--header-env takes NAME=VARIABLE, not {text!r}")
    return name.strip(), variable.strip()


def _value(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise UsageError(f"--value takes PARAM=VALUE, not {text!r}")
    return name, value


def budget_flags(args: argparse.Namespace) -> BudgetFlags:
    """`--budget`, `--time-budget`, `--rate`, `--concurrency` (None where not given), checked."""
    found = BudgetFlags(getattr(args, "budget", None), getattr(args, "time_budget", None),
                        getattr(args, "rate", None), getattr(args, "concurrency", None))
    if found.requests is not None and not 1 <= found.requests <= 1_000_000:
        raise UsageError("--budget must be a whole number from 1 to 1000000")
    if found.seconds is not None and not 0 < found.seconds <= 86400:  # NaN fails every comparison
        raise UsageError("--time-budget must be a number of seconds, more than 0 and at most 86400")
    if found.rate is not None and not 0 <= found.rate <= 10000:
        raise UsageError("--rate must be a number of requests per second from 0 (no limit) to 10000")
    if found.concurrency is not None and not 1 <= found.concurrency <= 32:
        raise UsageError("--concurrency must be a whole number from 1 to 32")
    return found


def request_inputs(args: argparse.Namespace, settings: SpecConfig, environ: Mapping[str, str],
                   url: str | None = None) -> RequestInputs:
    """Flags first, then the spec's config (staging headers, `requests:`); `url`: the server the command was given
    (then an unset `staging.url_env` is no news)."""
    notes: list[str] = []
    headers = [_header(h) for h in args.header]
    references = [(name, f"SATORI_HEADER_{n}") for n, (name, _) in enumerate(headers, start=1)]
    for text in args.header_env:
        name, variable = _header_env(text)
        references.append((name, variable))
        value = environ.get(variable)
        if value is None:
            notes.append(f"{variable} is not set: the {name} header is not sent")
        else:
            headers.append((name, value))
    staging = settings.staging(environ, url)
    flagged = {name.lower() for name, _ in headers}
    supplied = tuple(f"the {h} header is not sent" for h, _ in settings.headers if h.lower() in flagged)
    notes.extend(n for n in staging.notes if not n.endswith(supplied or ("\0",)))
    headers.extend(h for h in staging.headers if h[0].lower() not in flagged)
    references.extend(h for h in settings.headers if h[0].lower() not in flagged)
    if args.chain is not None and not 0 <= args.chain <= 1000:
        raise UsageError("--chain must be a whole number from 0 to 1000")
    plan, plan_notes = settings.plan_settings(environ, tuple(_value(v) for v in args.value), tuple(args.unsafe),
                                              args.chain, budget_flags(args))
    notes.extend(plan_notes)
    wanted = getattr(args, "min_exercised", None)
    if wanted is not None and wanted < 0:
        raise UsageError("--min-exercised must be 0 or more")
    min_exercised = wanted if wanted is not None else settings.requests.min_exercised_or_default
    team = load_team(args.postman_collection or settings.requests.collection,
                     args.postman_environment or (None if args.postman_collection else settings.requests.environment),
                     base_url=staging.url)
    current().add(*team_secrets(team))  # never printed: a note or a team test's message may quote them
    return RequestInputs(tuple(headers), tuple(references), plan, min_exercised,
                         settings.requests.fail_on_server_errors, tuple(notes), team)
