"""What the native runner, which runs no script, does not send of a team's collection, and the words it uses."""

from __future__ import annotations

from satori_ci.plan.given import GivenRequest
from satori_ci.run.scriptless import unsendable


def given(url: str, unresolved: tuple[str, ...] = (), empty: tuple[str, ...] = (),
          set_by: tuple[tuple[str, str], ...] = ()) -> GivenRequest:
    return GivenRequest(id="r", label="Kernels/one", method="GET", url=url, headers=(), body=None,
                        path="/api/kernels/{kernel_id}", unresolved=unresolved, empty=empty, set_by=set_by,
                        scripted=bool(set_by))


def test_an_empty_variable_a_script_sets_is_named_with_its_script_and_what_would_be_sent() -> None:
    said = unsendable(given("http://h/api/kernels/{{kernel_id}}", empty=("kernel_id",),
                            set_by=(("kernel_id", "Kernels/list"),)))
    assert said == ("Kernels/one needs {{kernel_id}}, which the collection's scripts set: run it with --runner "
                    "newman (kernel_id is empty until a script of Kernels/list sets it; sent without it, it would "
                    "be GET /api/kernels/)")


def test_an_unknown_variable_a_script_sets() -> None:
    said = unsendable(given("http://h/u/{{userId}}", unresolved=("userId",), set_by=(("userId", "Users/list"),)))
    assert said is not None
    assert said.startswith("Kernels/one needs {{userId}}, which the collection's scripts set: run it with --runner "
                           "newman (userId is set by a script of Users/list, which the native runner does not run)")


def test_dynamic_and_unknown_variables_say_what_they_are() -> None:
    said = unsendable(given("http://h/u/{{$guid}}/{{nope}}", unresolved=("$guid", "nope")))
    assert said == ("Kernels/one needs {{$guid}}: Postman makes up dynamic variables and the native runner does "
                    "not: run it with --runner newman; Kernels/one needs {{nope}}, which neither the collection, its "
                    "environment nor the globals define: define it, or run it with --runner newman")


def test_what_has_a_value_is_sent() -> None:
    assert unsendable(given("http://h/api/kernels/abc")) is None
    assert unsendable(given("http://h/api/kernels/", empty=("kernel_id",))) is None  # as Newman sends it
    assert unsendable(given("http://h/api/kernels/abc", set_by=(("kernel_id", "Kernels/list"),))) is None  # its value
