"""satori-ci: test oracles inferred from OpenAPI specs, checked on every pull request."""

__version__ = "0.1.0"
