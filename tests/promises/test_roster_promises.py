"""The worked example: the reference roster keeps every promise; each broken variant fails,
naming the role and what its child got (docs/promises.md)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from examples.roster import broken
from examples.roster.delegate import RosterDelegate
from examples.roster.roster import ROLES, Roster, RosterError, validate
from examples.roster.target import RosterTarget, make_target
from subagent_tck.conformance.cli import main
from subagent_tck.conformance.core import promises_file as pf
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.engine.promises import check_all
from subagent_tck.conformance.transports.builtin import reference_target

ROOT = Path(__file__).resolve().parents[2]
FILE = str(ROOT / "examples" / "roster" / "promises.toml")


def test_the_roster_keeps_every_promise_of_every_role(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["promises", "--target", "python:examples.roster.target:make_target", FILE,
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {i["promise"] for i in report["items"]} == {r.id for r in ROLES}
    assert all(i["status"] == "kept" for i in report["items"])
    tools = {i["promise"]: i["observed"] for i in report["items"] if i["aspect"] == "tools"}
    assert tools["reviewer-strict"] == ["glob", "grep", "read"] and tools["batch-classifier"] == []


@pytest.mark.parametrize("variant", sorted(broken.VARIANTS))
def test_a_broken_roster_fails_naming_the_role_and_what_it_got(
    variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    role, aspects = broken.VARIANTS[variant]
    code = main(["promises", "--target", f"python:examples.roster.broken:{variant}", FILE])
    out = capsys.readouterr().out
    assert code == 1
    failed = {line.split()[1].rstrip(":") for line in out.splitlines()
              if line.startswith("BROKEN")}
    assert failed == {f"{role}/{aspect}" for aspect in aspects}
    assert f"--only {role}" in out and "PROMISES BROKEN" in out


def test_a_target_without_the_trigger_tool_is_an_error_never_a_pass() -> None:
    report = check_all(reference_target(), pf.load(FILE), only=["planner"])
    assert [(i.aspect, i.status) for i in report.items] == [("trigger", "error")]
    assert "never offered 'delegate'" in report.items[0].message
    assert report.items[0].exchange and not report.kept


class _RefusingDelegate(RosterDelegate):
    def body(self, arguments, context):  # type: ignore[no-untyped-def]
        raise RuntimeError("delegation disabled")


def test_a_refused_trigger_call_is_an_error_with_the_recorded_exchange() -> None:
    target = RosterTarget(lambda: _RefusingDelegate(Roster(), "strict"))
    report = check_all(target, pf.load(FILE), only=["tester"])
    assert [(i.aspect, i.status) for i in report.items] == [("trigger", "error")]
    assert "was refused" in report.items[0].message and report.items[0].exchange


class _SilentChild(RosterDelegate):
    """Publishes nothing and never runs a child: the parent's call 'succeeds'."""

    def body(self, arguments, context):  # type: ignore[no-untyped-def]
        return {"output": "pretend"}


def test_a_child_that_never_asks_its_model_fails_persona_and_tools_plainly() -> None:
    target = RosterTarget(lambda: _SilentChild(Roster(), "strict"))
    report = check_all(target, pf.load(FILE), only=["tester"])
    status = {i.aspect: i.status for i in report.items}
    assert status["persona"] == status["tools"] == "broken"
    assert status["refuses:calls"] == status["refuses:delegation"] == "error"
    assert all("never made a model request" in i.message for i in report.items
               if i.aspect in ("persona", "tools"))


def test_strict_mode_refuses_a_bad_roster_and_advisory_warns() -> None:
    bad = broken._roster("reviewer-strict", capability="workspace")
    with pytest.raises(RosterError, match="review role 'reviewer-strict' gets write"):
        validate(bad, "strict")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert validate(bad, "advisory")
    assert any("reviewer-strict" in str(w.message) for w in seen)
    assert validate(Roster(), "strict") == []


def test_strict_mode_checks_allowed_models_and_batch_tools() -> None:
    with pytest.raises(RosterError) as caught:
        validate(Roster(allowed_models=("large",)), "strict")
    assert any("tier 'fast'" in p for p in caught.value.problems)
    with pytest.raises(RosterError, match="batch role 'batch-classifier' gets tools"):
        validate(broken._roster("batch-classifier", capability="verify"), "strict")


def test_the_example_target_is_a_target() -> None:
    from subagent_tck.conformance.core.target import Target

    assert isinstance(make_target(), Target)


def test_a_schema_or_an_at_least_the_child_does_not_get_is_broken() -> None:
    text = Path(FILE).read_text(encoding="utf-8").replace(
        'tools = { exactly = ["read", "grep", "glob", "bash"] }\n'
        'schemas.read = { type = "object", properties = { path = { type = "string" } }, '
        'required = ["path"] }',
        'tools = { at_least = ["read", "web_fetch"] }\n'
        'schemas.read = { type = "object", properties = { path = { type = "integer" } } }', 1)
    file = pf.parse(text, "edited.toml")
    report = check_all(make_target(), file, only=["tester"])
    status = {i.aspect: i for i in report.items}
    assert status["tools"].status == "broken" and "lacks ['web_fetch']" in status["tools"].message
    assert status["schema:read"].status == "broken"
    assert status["schema:read"].observed["properties"]["path"] == {"type": "string"}
    assert status["persona"].status == "kept"


def _with_model(model: str, only: str = "planner") -> pf.PromisesFile:
    text = Path(FILE).read_text(encoding="utf-8").replace(
        f'id = "{only}"', f'id = "{only}"\nmodel = {json.dumps(model)}', 1)
    return pf.parse(text, "m.toml")


class _ModelStamp(Gateway):
    """What a runtime that names its models sends: ``models(agent)`` in each chat body."""

    def __init__(self, inner: Gateway, models: Callable[[str], str | None]) -> None:
        super().__init__()
        self.inner, self.models = inner, models

    def complete(self, request: ModelRequest) -> ModelReply:
        return self.inner.complete(request.model_copy(update={"model": self.models(request.agent)}))


class _ModelTarget(RosterTarget):
    """The roster, its children reporting ``child`` as their model (the root ``parent``)."""

    def __init__(self, child: str | None, parent: str = "root-model") -> None:
        super().__init__(lambda: RosterDelegate(Roster(), "strict"))
        self.child, self.parent = child, parent

    def deploy(self, config, gateway):  # type: ignore[no-untyped-def]
        holder: dict[str, str] = {}
        stamp = _ModelStamp(gateway, lambda agent: self.parent if agent == holder.get("root")
                            else self.child)
        deployment = super().deploy(config, stamp)
        holder["root"] = deployment.root().agent
        return deployment


MODELS = st.from_regex(r"[a-z][a-z0-9.:-]{0,14}", fullmatch=True).filter(
    lambda m: m != "subagent-tck")


@settings(max_examples=8, deadline=None)
@given(MODELS)
def test_a_model_promise_is_kept_when_every_child_request_names_that_model(model: str) -> None:
    report = check_all(_ModelTarget(model), _with_model(model), only=["planner"])
    item = next(i for i in report.items if i.aspect == "model")
    assert item.status == "kept" and item.observed == model and report.kept


@settings(max_examples=8, deadline=None)
@given(MODELS, MODELS)
def test_a_child_run_with_another_model_breaks_the_promise_naming_what_it_got(
    promised: str, got: str
) -> None:
    assume(promised != got)
    report = check_all(_ModelTarget(got, parent=promised), _with_model(promised),
                       only=["planner"])
    item = next(i for i in report.items if i.aspect == "model")
    assert item.status == "broken" and item.observed == got
    assert f"the child asked for model {got!r}" in item.message and not report.kept


def test_a_model_promise_the_target_never_reports_is_an_error_that_says_so() -> None:
    report = check_all(make_target(), _with_model("large"), only=["planner"])
    item = next(i for i in report.items if i.aspect == "model")
    assert item.status == "error" and "never reported the model" in item.message
    assert item.exchange and not report.kept


def test_forged_calls_carry_arguments_valid_for_the_tools_schema() -> None:
    from subagent_tck.conformance.engine.promise_scripts import valid_arguments

    schema = {"type": "object", "required": ["path", "n", "mode", "opts"],
              "properties": {"path": {"type": "string"}, "n": {"type": "integer"},
                             "mode": {"enum": ["r", "w"]},
                             "opts": {"type": "object", "required": ["x"],
                                      "properties": {"x": {"type": "boolean"}}}}}
    assert valid_arguments(schema) == {"path": "x", "n": 0, "mode": "r", "opts": {"x": False}}
    assert valid_arguments({"type": "object"}) == {}


def test_a_trigger_from_an_agent_at_the_cap_is_an_error_not_a_pass() -> None:
    text = Path(FILE).read_text(encoding="utf-8").replace(
        'trigger = { tool = "delegate", arguments = { role = "tester",',
        'trigger = { tool = "delegate", agent_depth = 1, arguments = { role = "tester",', 1)
    report = check_all(make_target(), pf.parse(text, "d.toml"), only=["tester"])
    assert [(i.aspect, i.status) for i in report.items] == [("trigger", "error")]
    assert "greater than maxDepth 1" in json.dumps(report.items[0].observed)


def test_a_target_that_fails_while_observed_is_an_error_item() -> None:
    class _Blind(RosterTarget):
        def deploy(self, config, gateway):  # type: ignore[no-untyped-def]
            deployment = super().deploy(config, gateway)

            def observe() -> None:
                raise RuntimeError("observation lost")

            deployment.observe = observe  # type: ignore[method-assign]
            return deployment

    report = check_all(_Blind(lambda: RosterDelegate(Roster(), "strict")), pf.load(FILE),
                       only=["tester"])
    errors = [i for i in report.items if i.status == "error"]
    assert [i.aspect for i in errors] == ["observe"] and "observation lost" in errors[0].message
    assert not report.kept
