"""Build the backend a run asked for; the LLM one always falls back to rules and adds declared oracles."""

from __future__ import annotations

from collections.abc import Sequence

from satori_ci.infer.declared import DeclaredBackend, dedupe
from satori_ci.infer.interface import BackendRun, InferenceBackend, Inferred, OnInferred
from satori_ci.infer.llm import LLMBackend, LLMConfig, ProgressCallback
from satori_ci.infer.llm.backend import CompletionClient
from satori_ci.infer.rules import RulesBackend
from satori_ci.spec.model import ResponseField, Spec

BACKENDS = ("rules", "llm", "declared")


class WithDeclared:
    """Another backend's oracles plus the schema-declared ones (declared first, one per kind)."""

    def __init__(self, inner: InferenceBackend) -> None:
        self.inner = inner
        self.name = inner.name
        self._declared = DeclaredBackend()

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        def merged(result: Inferred) -> Inferred:
            declared = self._declared.infer([result.field]).results[0].oracles
            return Inferred(result.field, dedupe(result.field, (*declared, *result.oracles)), result.notes)

        def forward(result: Inferred) -> None:
            if on_inferred is not None:
                on_inferred(merged(result))

        try:
            run = self.inner.infer(fields, forward)
        except KeyboardInterrupt as exc:
            partial = getattr(exc, "partial", None)
            if isinstance(partial, BackendRun):
                exc.partial = BackendRun(tuple(merged(r) for r in partial.results), partial.stats)  # type: ignore[attr-defined]
            raise
        return BackendRun(tuple(merged(r) for r in run.results), run.stats)


def make_backend(name: str, llm: LLMConfig | None = None, progress: ProgressCallback | None = None,
                 context: Sequence[ResponseField] | None = None, spec: Spec | None = None,
                 client: CompletionClient | None = None) -> InferenceBackend:
    """`rules` (default, offline), `declared` (schema keywords only) or `llm` (needs `llm`).

    `context` is every field of the spec: rules that read neighbouring fields see all of them
    even when only a few fields are inferred; `spec` lets rules read an operation's request (page sizes);
    `client`: where the llm backend's answers come from (default: the server `llm` names).
    """
    if name == "declared":
        return DeclaredBackend()
    if name == "llm":
        if llm is None:
            raise ValueError("the llm backend needs an LLMConfig")
        return WithDeclared(LLMBackend(llm, fallback=RulesBackend(context, spec=spec), progress=progress,
                                       client=client))
    return RulesBackend(context, spec=spec)



