"""Suggested changes on the oracle file (pure): the patch's hunks, which lines get a comment, the bodies, and the
`satori-ci accept` / `reject` commands the reports name."""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

from satori_ci import redaction
from satori_ci.observe.apply import pending
from satori_ci.oracles.file import load_oracle_file
from satori_ci.report.accept_commands import (
    all_command,
    command_block,
    default_oracle_file,
    operation_commands,
    oracle_command,
)
from satori_ci.report.model import SpecCheck
from satori_ci.report.suggested_changes import (
    MARKER,
    MAX_SUGGESTED_CHANGES,
    SuggestedChange,
    new_changes,
    review_body,
    right_lines,
    suggested_changes,
)
from tests.report import factory as f
from tests.report.gfm import shown, to_html

PATH = ".satori/api.openapi.oracles.yaml"
WAITING_ID = ('        - {kind: string_fixed_length, value: 13, source: "observed", evidence: 40, enabled: false, '
              'reason: "observed: 13 characters in all 40 responses"}')
WAITING_TITLE = ('        - {kind: string_specific_values, value: ["Dune ```` x"], source: "observed", evidence: 41, '
                 'enabled: false, reason: "observed: one title ```` in 41 responses"}')
WAITING_OPEN = ('        - {kind: boolean_always_false, source: "observed", evidence: 7, enabled: false, '
                'reason: "observed: always false in 7 responses"}')
FILE = f"""# satori-ci oracles for api/openapi.yaml
version: 1
spec: "api/openapi.yaml"
operations:
  "GET /books 200":
    "total":
      fingerprint: "1"
      oracles:
        - {{kind: number_min_value, value: 0, source: "rules", enabled: true, reason: "a count"}}
    "books[].isbn":
      fingerprint: "2"
      oracles:
{WAITING_ID}
    "books[].title":
      fingerprint: "3"
      oracles:
{WAITING_TITLE}
    "books[].x":
      fingerprint: "4"
      oracles: []
    "books[].y":
      fingerprint: "5"
      oracles: []
    "books[].open":
      fingerprint: "6"
      oracles:
{WAITING_OPEN}
"""
PATCH = f"""@@ -9,11 +9,13 @@ operations:
         - {{kind: number_min_value, value: 0, source: "rules", enabled: true, reason: "a count"}}
     "books[].isbn":
       fingerprint: "2"
-      oracles: []
+      oracles:
+{WAITING_ID}
     "books[].title":
       fingerprint: "3"
-      oracles: []
+      oracles:
+{WAITING_TITLE}
     "books[].x":
       fingerprint: "4"
       oracles: []"""
"""The pull request added the first two suggestions; the third (line 26) was there before, outside any hunk."""


def _spec(text: str = FILE, **overrides: Any) -> SpecCheck:
    values: dict[str, Any] = {"spec": "api/openapi.yaml", "oracle_file": PATH,
                                 "suggestions": pending(load_oracle_file(text, PATH))}
    values.update(overrides)
    return f.spec_check(**values)


def test_right_lines_are_the_added_and_context_lines_of_each_hunk() -> None:
    patch = ("@@ -1,3 +1,4 @@ top\n a\n-b\n+B\n+C\n c\n"
             "@@ -10 +11 @@\n-x\n+y\n\\ No newline at end of file\n"
             "@@ -20,2 +21,0 @@\n-gone\n-gone too\n"
             "@@ -30,1 +29,1 @@\n kept\n+past the hunk's count: not a line")
    assert right_lines(patch) == {1: "a", 2: "B", 3: "C", 4: "c", 11: "y", 29: "kept"}
    assert right_lines("@@ -0,0 +1,2 @@\n+first\n+") == {1: "first", 2: ""}
    assert right_lines("") == {} and right_lines("not a patch\n+x") == {}


def test_the_diff_lines_holding_waiting_suggestions_get_one_comment_each() -> None:
    changes = suggested_changes(_spec(), PATH, FILE, PATCH)
    assert [(c.path, c.line) for c in changes] == [(PATH, 13), (PATH, 17)]  # line 26 is outside every hunk
    assert changes[0].body == (
        "<!-- satori-ci:suggestion=.satori/api.openapi.oracles.yaml -->\n"
        "**Suggested oracle (observed):** `string_fixed_length 13` on `GET /books 200` `books[].isbn`, held in 40 "
        "observed responses (observed: 13 characters in all 40 responses).\n\n"
        "Commit this suggestion to switch it on (`enabled: true`); to dismiss it for good: `satori-ci reject "
        "api/openapi.yaml --operation 'GET /books 200' --field 'books[].isbn' --kind string_fixed_length`.\n\n"
        "```suggestion\n" + WAITING_ID.replace("enabled: false", "enabled: true") + "\n```\n")
    assert changes[0].accept_all == "satori-ci accept api/openapi.yaml --all"


def test_a_line_holding_backticks_gets_a_longer_fence() -> None:
    body = suggested_changes(_spec(), PATH, FILE, PATCH)[1].body
    fenced = body.split("\n\n")[-1]
    assert fenced == "`````suggestion\n" + WAITING_TITLE.replace("enabled: false", "enabled: true") + "\n`````\n"
    assert "`````string_specific_values [\"Dune ```` x\"]`````" in body
    rendered = to_html(body)
    assert "<!--" not in shown(rendered) and "Dune ```` x" in shown(rendered)


def test_only_suggestions_the_check_still_makes_on_lines_that_match_the_patch() -> None:
    suggestions = pending(load_oracle_file(FILE, PATH))
    dropped = _spec(suggestions=suggestions[1:])  # the check no longer supports the first one
    assert [c.line for c in suggested_changes(dropped, PATH, FILE, PATCH)] == [17]
    moved = PATCH.replace(WAITING_ID, WAITING_ID.replace("40", "41"))  # the file is not the one GitHub diffs
    assert [c.line for c in suggested_changes(_spec(), PATH, FILE, moved)] == [17]
    assert suggested_changes(_spec(), PATH, FILE, None) == ()
    assert suggested_changes(_spec(suggestions=()), PATH, FILE, PATCH) == ()
    assert suggested_changes(_spec(), PATH, "not: [an oracle file", PATCH) == ()


def test_a_hand_written_block_oracle_is_suggested_on_its_enabled_line() -> None:
    text = FILE.replace(WAITING_ID, "        - kind: string_fixed_length\n          value: 13\n"
                                    "          source: observed   # seen by the store\n          evidence: 40\n"
                                    "          enabled: false\n          reason: 13 characters")
    patch = "@@ -10,8 +10,8 @@\n" + "\n".join(" " + row for row in text.splitlines()[9:17])
    (change,) = suggested_changes(_spec(text), PATH, text, patch)
    assert change.line == 17 and text.splitlines()[16] == "          enabled: false"
    assert change.body.endswith("```suggestion\n          enabled: true\n```\n")


def test_two_suggestions_on_one_line_are_one_comment() -> None:
    line = ('      oracles: [{kind: boolean_always_false, source: observed, evidence: 9, enabled: false}, '
            '{kind: string_is_url, source: observed, evidence: 9, enabled: false}]')
    text = FILE.replace("      oracles: []", line, 1)
    patch = "@@ -20,1 +20,1 @@\n-      oracles: []\n+" + line
    (change,) = suggested_changes(_spec(text), PATH, text, patch)
    assert change.line == 20 and change.body.count("**Suggested oracle (observed):**") == 2
    assert line.replace("enabled: false", "enabled: true") in change.body


def test_a_line_that_encoding_would_change_is_not_suggested() -> None:
    secret = "s3cr3t-token-value-1234"
    text, patch = FILE.replace("Dune", secret), PATCH.replace("Dune", secret)
    with redaction.installed([secret]):
        assert [c.line for c in suggested_changes(_spec(text), PATH, text, patch)] == [13]
    hidden = FILE.replace("Dune", "<!-- Dune"), PATCH.replace("Dune", "<!-- Dune")
    assert [c.line for c in suggested_changes(_spec(hidden[0]), PATH, *hidden)] == [13]


def test_commands_name_the_oracle_file_only_when_it_is_not_the_default() -> None:
    spec = _spec()
    assert default_oracle_file("api/openapi.yaml") == PATH == default_oracle_file("./api/openapi.yaml")
    assert all_command(spec) == "satori-ci accept api/openapi.yaml --all"
    assert all_command(replace(spec, oracle_file="./" + PATH), "reject") == "satori-ci reject api/openapi.yaml --all"
    elsewhere = replace(spec, oracle_file="oracles/api.openapi.oracles.yaml")
    assert all_command(elsewhere) == ("satori-ci accept api/openapi.yaml --oracles oracles/api.openapi.oracles.yaml "
                                      "--all")
    hostile = replace(spec, spec="-x'; rm -rf ~ `id`.yaml", oracle_file="o $(id).yaml")
    words = shlex.split(oracle_command(hostile, "accept", spec.suggestions[0]))
    assert words == ["satori-ci", "accept", "./-x'; rm -rf ~ `id`.yaml", "--oracles", "o $(id).yaml",
                     "--operation", "GET /books 200", "--field", "books[].isbn", "--kind", "string_fixed_length"]


def test_per_operation_commands_only_for_several_operations() -> None:
    spec = _spec()
    assert operation_commands(spec) == []
    other = replace(spec.suggestions[0], operation=f.DETAIL)
    several = replace(spec, suggestions=(*spec.suggestions, other))
    assert operation_commands(several) == ["satori-ci accept api/openapi.yaml --operation 'GET /books'",
                                           "satori-ci accept api/openapi.yaml --operation 'GET /businesses/{id}'"]
    block = command_block(several, limit=1)
    assert block.splitlines() == ["```sh", "satori-ci accept api/openapi.yaml --all",
                                  "satori-ci accept api/openapi.yaml --operation 'GET /books'",
                                  "# … and 1 more operations", "satori-ci reject api/openapi.yaml --all", "```"]


def test_a_hostile_spec_path_stays_one_literal_command_in_markdown() -> None:
    path = "api/``` </details> <!-- x --> @octocat\n#1.yaml"
    spec = replace(_spec(), spec=path)
    rendered = shown(to_html(command_block(spec)))
    accept = rendered.strip().splitlines()[0]
    assert shlex.split(accept) == ["satori-ci", "accept", path.replace("\n", "↵"), "--oracles", PATH, "--all"]
    assert "<!--" not in command_block(spec)


def _change(line: int, body: str = "b") -> SuggestedChange:
    return SuggestedChange(PATH, line, body, "satori-ci accept api/openapi.yaml --all")


def test_new_changes_leave_out_the_posted_ones_and_cap_the_rest() -> None:
    changes = [_change(n) for n in range(1, 61)]
    posting, left = new_changes(changes, {(PATH, 1, "b"), (PATH, 2, "other body")})
    assert [c.line for c in posting] == list(range(2, 2 + MAX_SUGGESTED_CHANGES))
    assert [c.line for c in left] == list(range(2 + MAX_SUGGESTED_CHANGES, 61))


def test_the_review_body_points_to_accept_for_the_rest() -> None:
    assert review_body([_change(1)], []) == (
        f"{MARKER}\nsatori-ci suggests 1 observed oracle on lines of this pull request's oracle files: commit a "
        "suggestion to switch its oracle on, or dismiss it with the `satori-ci reject` command its comment names.\n")
    body = review_body([_change(1), _change(2)], [_change(3), _change(4)])
    assert body.endswith("\n\n2 more suggestions on this diff are not shown here (at most 50 a run): accept them "
                         "all with `satori-ci accept api/openapi.yaml --all`, or see the sticky comment.\n")
