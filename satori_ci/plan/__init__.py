"""The request plan: which operations are sent, with which inputs, in which order (between spec and postman)."""

from satori_ci.plan.build import plan_requests
from satori_ci.plan.model import Chain, Harvest, PlannedOperation, PlanSettings, RequestPlan, Skip, SkipKind

__all__ = ["Chain", "Harvest", "PlanSettings", "PlannedOperation", "RequestPlan", "Skip", "SkipKind", "plan_requests"]
