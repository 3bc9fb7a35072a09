"""The `rules` backend: declared oracles plus deterministic rules over names, descriptions and examples."""

from satori_ci.infer.rules.backend import RulesBackend, context_digests

__all__ = ["RulesBackend", "context_digests"]
