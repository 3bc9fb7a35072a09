"""The run stage: send the collection's requests (Newman or natively) or read recorded responses, and check them."""

from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.model import (
    InfraProblem,
    ProblemKind,
    RequestRef,
    ResponseProblem,
    ResponseProblemKind,
    RunResult,
    Violation,
)
from satori_ci.run.outcome import RunConfig

__all__ = [
    "InfraProblem", "ProblemKind", "RequestRef", "ResponseProblem", "ResponseProblemKind", "RunConfig", "RunError",
    "RunErrorKind", "RunResult", "Violation",
]
