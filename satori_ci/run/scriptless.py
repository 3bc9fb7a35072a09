"""What a runner that runs no script (the native one) cannot send of a team's collection, and why. Pure."""

from __future__ import annotations

from urllib.parse import urlsplit

from satori_ci.plan.given import GivenRequest

NEWMAN = "run it with --runner newman"


def unsendable(given: GivenRequest) -> str | None:
    """Why `given` is not sent without the collection's scripts, None when it can be: a variable a script sets has
    no value before they run (sent now, an empty one would call another path: `GET /api/kernels/`), or a variable
    is dynamic or unknown. One line, naming the request and each variable."""
    waiting = given.waits_for_scripts()
    reasons = []
    if waiting:
        names = ", ".join("{{" + name + "}}" for name, _ in waiting)
        wheres = "; ".join(_set_by(given, name, where) for name, where in waiting)
        reasons.append(f"{given.label} needs {names}, which the collection's scripts set: {NEWMAN} ({wheres})")
    scripted = {name for name, _ in given.set_by}
    dynamic = [n for n in given.unresolved if n.startswith("$") and n not in scripted]
    unknown = [n for n in given.unresolved if not n.startswith("$") and n not in scripted]
    if dynamic:
        reasons.append(f"{given.label} needs {_braced(dynamic)}: Postman makes up dynamic variables and the native "
                       f"runner does not: {NEWMAN}")
    if unknown:
        reasons.append(f"{given.label} needs {_braced(unknown)}, which neither the collection, its environment nor "
                       f"the globals define: define it, or {NEWMAN}")
    return "; ".join(reasons) or None


def _set_by(given: GivenRequest, name: str, where: str) -> str:
    script = f"a script of {where}" if where else "a script"
    if name in given.empty:
        path = urlsplit(given.url).path or "/"
        for empty in given.empty:
            path = path.replace("{{" + empty + "}}", "")
        return f"{name} is empty until {script} sets it; sent without it, it would be {given.method} {path}"
    return f"{name} is set by {script}, which the native runner does not run"


def _braced(names: list[str]) -> str:
    return ", ".join("{{" + n + "}}" for n in names)
