"""`PathTemplate.bind_greedy`: a whole-segment parameter taking several segments (a file path)."""

from __future__ import annotations

from satori_ci.spec.routes import parse_template


def test_the_last_parameter_takes_the_rest_joined_by_slashes() -> None:
    template = parse_template("/api/contents/{path}")
    assert template.bind_greedy(["api", "contents", "data", "clean", "summary.json"], "path") == (
        ("path", "data/clean/summary.json"),)


def test_a_parameter_in_the_middle_takes_what_the_literals_around_it_leave() -> None:
    template = parse_template("/api/contents/{path}/checkpoints/{checkpoint_id}")
    assert template.bind_greedy(["api", "contents", "a", "b.ipynb", "checkpoints", "c1"], "path") == (
        ("path", "a/b.ipynb"), ("checkpoint_id", "c1"))
    assert template.bind_greedy(["api", "contents", "a", "b.ipynb", "other", "c1"], "path") is None


def test_one_segment_empty_segments_and_unknown_or_mixed_parameters_do_not_bind() -> None:
    template = parse_template("/files/{path}")
    assert template.bind_greedy(["files", "one"], "path") is None  # one segment: `bind`'s job
    assert template.bind_greedy(["files", "", "x"], "path") is None
    assert template.bind_greedy(["files", "a", "b"], "other") is None
    assert parse_template("/files/{name}.json").bind_greedy(["files", "a", "b.json"], "name") is None
