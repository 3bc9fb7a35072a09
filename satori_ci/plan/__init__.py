"""The request plan: which operations are sent, with which inputs, in which order (`plan_requests`), and the requests
every runner sends and the Postman export writes (`build_requests`: a `RequestSet`)."""

from satori_ci.plan.build import plan_requests
from satori_ci.plan.expand import build_requests
from satori_ci.plan.model import Chain, Harvest, PlannedOperation, PlanSettings, RequestPlan, Skip, SkipKind
from satori_ci.plan.requests import PlannedRequest, RequestSet

__all__ = ["Chain", "Harvest", "PlanSettings", "PlannedOperation", "PlannedRequest", "RequestPlan", "RequestSet",
           "Skip", "SkipKind", "build_requests", "plan_requests"]
