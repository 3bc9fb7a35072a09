"""`satori-ci collection --explain`: which spec operation each request of the team's collection calls, and why."""

from __future__ import annotations

import argparse
import sys

from satori_ci.check.workspace import load_team, team_secrets
from satori_ci.config import load_config
from satori_ci.errors import ExitCode, UsageError
from satori_ci.postman.explain import explain, explain_json, explain_text
from satori_ci.postman.match import given_requests
from satori_ci.redaction import current, redact
from satori_ci.run.scriptless import unsendable
from satori_ci.spec import Spec


def run_explain(args: argparse.Namespace, spec: Spec) -> int:
    """Print the match report of the team's collection (`--json`: as JSON), redacted, on standard output."""
    settings = load_config(args.config).for_spec(spec.file)
    team = load_team(args.postman_collection or settings.requests.collection,
                     args.postman_environment or (None if args.postman_collection else settings.requests.environment),
                     base_url=args.base_url)
    if team is None:
        raise UsageError("--explain needs a team collection: --postman-collection FILE, or requests.collection in "
                         f"{settings.source}")
    current().add(*team_secrets(team))
    given = given_requests(team, spec, args.base_url)
    native = {g.id: reason for g in given.requests if (reason := unsendable(g))}
    items = explain(team, spec, args.base_url)
    render = explain_json if args.json else explain_text
    sys.stdout.write(redact(render(team, items, spec.source, native)))
    return ExitCode.OK
