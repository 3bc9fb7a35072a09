"""Incremental inference on GitHub's REST spec: one changed description, one LLM call.

A full run is recorded first (fingerprints are the same whatever the backend, so the rules backend
writes the baseline oracle file quickly). Then one field's description is edited in a copy of the
spec, and the LLM backend runs against a local OpenAI-compatible server on 127.0.0.1 with the
baseline as the previous oracle file. Printed: fields re-inferred and LLM calls made, next to what
a full LLM run would make (one call per field) and a measured full LLM run on a sample.

    python3 bench/incremental.py [--sample 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._npm import github_spec
from satori_ci.infer.factory import make_backend
from satori_ci.infer.incremental import plan_inference, update_oracle_file
from satori_ci.infer.llm import LLMConfig
from satori_ci.infer.rules import context_digests
from satori_ci.spec import load_spec
from tests.servers.openai_server import FakeOpenAIServer


def edit_one_description(document: dict, pointer_path: list[str]) -> None:
    node = document
    for token in pointer_path:
        node = node[token]
    node["description"] = str(node.get("description", "")) + " (edited)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=200, help="fields in the measured full LLM run sample")
    args = parser.parse_args()
    source = github_spec()
    with tempfile.TemporaryDirectory() as tmp:
        base_path = Path(tmp) / "api.github.com.json"
        document = json.loads(source.read_text(encoding="utf-8"))
        base_path.write_text(json.dumps(document), encoding="utf-8")
        base = load_spec(str(base_path))
        start = time.perf_counter()
        baseline = update_oracle_file(base.file, base.fields, None, make_backend("rules", context=base.fields),
                                      contexts=context_digests(base.fields))
        rules_seconds = time.perf_counter() - start
        # a field named in one place only: its description lives in the operation's own schema
        counts: dict[tuple[str, str], int] = {}
        for f in base.fields:
            counts[(f.location.file, f.location.pointer)] = counts.get((f.location.file, f.location.pointer), 0) + 1
        target = next(f for f in base.fields if counts[(f.location.file, f.location.pointer)] == 1
                      and f.facts.description and f.location.pointer.startswith("/paths/"))
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in target.location.pointer.split("/")[1:]]
        edit_one_description(document, tokens)
        head_path = Path(tmp) / "head.json"
        head_path.write_text(json.dumps(document), encoding="utf-8")
        head = load_spec(str(head_path))
        digests = context_digests(head.fields)
        plan = plan_inference(head.fields, baseline.file, digests)
        with FakeOpenAIServer(default={}) as server:
            config = LLMConfig(model="fake-model", base_url=server.base_url, api_key="bench", concurrency=4)
            start = time.perf_counter()
            backend = make_backend("llm", config, context=head.fields)
            result = update_oracle_file(head.file, head.fields, baseline.file, backend, contexts=digests)
            incremental_seconds = time.perf_counter() - start
            calls = len(server.requests)
            sample = head.fields[: args.sample]
            start = time.perf_counter()
            make_backend("llm", config).infer(sample)
            sample_seconds = time.perf_counter() - start
    full_estimate = sample_seconds / max(1, len(sample)) * len(head.fields)
    print(f"spec: {len(head.fields):,} response fields; edited: {target.operation} {target.field}")
    print(f"baseline (rules, full run): {len(baseline.file.entries):,} fields inferred in {rules_seconds:.1f} s")
    print(f"incremental (llm): {len(plan.to_infer)} field(s) re-inferred, {calls} LLM call(s), "
          f"{result.reused:,} reused, {incremental_seconds:.1f} s in all")
    print(f"full llm run: {len(head.fields):,} LLM calls (one per field); measured on {len(sample)} fields: "
          f"{sample_seconds:.2f} s, about {full_estimate / 60:.0f} min for all against the local server")
    print(f"ratio: {calls} / {len(head.fields):,} calls = {calls / len(head.fields):.6f} of a full run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
