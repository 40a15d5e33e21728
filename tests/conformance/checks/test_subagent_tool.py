"""The ST checks (conformance/engine/checks/subagent_tool.py) against the reference and the ST zoo.

A tiny runner builds a :class:`CheckContext` per ST check, provider and edition, runs it, and
collects the failing rule ids: the reference must fail none and leave no rule unexercised; each
zoo entry must fail its ``BREAKS`` rule and nothing outside ``BREAKS`` + ``ALSO_BREAKS``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from subagent_tck.conformance.core.outcome import Failure
from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.check_run import run_check
from subagent_tck.conformance.engine.checks import load_checks
from subagent_tck.conformance.engine.runner import Suite, plan
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import CATALOGUE, Edition

from .zoo_cases import SUBAGENT_TOOL, entry

ST_RULES = {f"ST-{n:02d}" for n in range(1, 10)}


def st_checks() -> list[Check]:
    return [c for c in load_checks().values() if set(c.rules) & ST_RULES]


def run_st(target: Target, editions: tuple[Edition, ...] = tuple(Edition)) -> Iterator[
    tuple[CheckContext, list[Failure]]
]:
    """Each ST check as the engine plans it (``runner.plan``: per provider, per edition), run
    by ``check_run.run_check``."""
    info = target.info()
    suite = Suite(tuple(CATALOGUE), {c.name: c for c in st_checks()})
    for edition in editions:
        for item in plan(suite, info, edition, None):
            ctx = CheckContext(target, item.check, edition, item.provider, info.providers, 0, 5)
            run_check(ctx)
            yield ctx, ctx.failures


def failing_rules(target: Target) -> set[str]:
    """The ST checks do not depend on the edition: one is enough for the zoo."""
    editions = (Edition.PRESET_COMPOSITION,)
    return {f.rule for _, failures in run_st(target, editions) for f in failures}


def test_every_st_rule_has_a_check() -> None:
    assert {r for c in st_checks() for r in c.rules} == ST_RULES


def test_the_reference_passes_every_st_check_and_exercises_every_rule() -> None:
    exercised: set[str] = set()
    problems = []
    for ctx, failures in run_st(reference_target()):
        exercised |= ctx.exercised
        problems += [(f.rule, ctx.provider and ctx.provider.name, f.message) for f in failures]
        assert not ctx.not_applicable
    assert problems == []
    assert exercised == ST_RULES


@pytest.mark.parametrize("name", SUBAGENT_TOOL)
def test_a_zoo_entry_fails_exactly_the_rule_it_breaks(name: str) -> None:
    module = entry(name)
    failed = failing_rules(module.provider())
    assert module.BREAKS in failed
    assert failed == {module.BREAKS, *getattr(module, "ALSO_BREAKS", ())}


def test_fork_wording_may_exclude_the_in_flight_turn_but_not_the_conversation() -> None:
    from subagent_tck.conformance.engine.checks._subagent_driver import wording_problems

    dsh_like = ("The child is seeded with this conversation's completed turns (it does not see "
                "the current in-flight turn); state only what is new.")
    assert wording_problems(dsh_like, fork=True) == []
    denying = "The child is seeded with completed turns but does not see this conversation."
    assert wording_problems(denying, fork=True) == ["says the child does not see the conversation"]


def test_a_tool_that_requires_no_parameter_and_a_runtime_with_its_own_context_pass_st() -> None:
    """ST-01 fixes the parameters the model sees, not which are required; ST-08 speaks of the
    at-cap notice, not of every runtime-context item (examples/providers/
    tool_conventions_of_its_own.py)."""
    module = entry("tool_conventions_of_its_own")
    assert failing_rules(module.provider()) == set()  # type: ignore[attr-defined]


def test_other_runtime_context_that_also_says_work_directly_is_a_repeated_notice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The other side: context that tells the agent to work directly is a notice, and one
    appended on every request while the cap is unchanged fails ST-08."""
    module = entry("tool_conventions_of_its_own")
    monkeypatch.setattr(module, "WORKSPACE", "Turn {turn}: work directly where you can.")
    assert "ST-08" in failing_rules(module.provider())  # type: ignore[attr-defined]


def test_a_schema_requiring_a_third_name_fails_st_01(monkeypatch: pytest.MonkeyPatch) -> None:
    module = entry("tool_conventions_of_its_own")

    def parameters(self: object, prompt_text: str) -> dict[str, object]:
        schema = super(module.NothingRequiredTool, self).parameters(  # type: ignore[attr-defined]
            prompt_text)
        schema["required"] = ["prompt", "provider"]
        return schema

    monkeypatch.setattr(module.NothingRequiredTool, "parameters", parameters)  # type: ignore[attr-defined]
    assert failing_rules(module.provider()) == {"ST-01"}  # type: ignore[attr-defined]


def test_a_non_boolean_parameter_that_skips_the_cap_is_drawn_from_its_schema_and_fails_st_07(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """ST-07 draws every extra parameter from the offered JSON Schema, not only booleans: a
    tool whose optional ``schedule`` enum value "later" answers success at the cap fails."""
    module = entry("background_flag_skips_cap")
    tool = module.BackgroundFlagTool  # type: ignore[attr-defined]
    base_parameters, base_call = tool.parameters, tool.call

    def parameters(self: object, prompt_text: str) -> dict[str, object]:
        schema = base_parameters(self, prompt_text)
        schema["properties"][module.FLAG] = {"enum": ["now", "later"]}  # type: ignore[index, attr-defined]
        return schema

    def call(self: object, arguments: dict[str, object], context: object) -> object:
        flag = module.FLAG  # type: ignore[attr-defined]
        return base_call(self, {**arguments, flag: arguments.get(flag) == "later"}, context)

    monkeypatch.setattr(tool, "parameters", parameters)
    monkeypatch.setattr(tool, "call", call)
    assert failing_rules(module.provider()) == {"ST-01", "ST-07"}  # type: ignore[attr-defined]


def test_a_target_shipping_the_tool_that_cannot_switch_runtime_context_off_fails_st_08(
        ) -> None:
    """set-runtime-context may be answered UNSUPPORTED_OPERATION by a runtime whose context is
    its own (docs/driver-api.md#unsupported-operations), never by one shipping the tool whose
    context ST-08 switches: that answer is a failure, not a rule made not applicable."""
    from target_wrappers import patched

    from subagent_tck.conformance.core.outcome import Outcome
    from subagent_tck.conformance.engine.runner import RunConfig, certify
    from subagent_tck.spec import ErrorCode, TckError

    def refuse(deployment: object) -> object:
        def set_runtime_context(enabled: bool) -> None:
            raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no switch here")
        return set_runtime_context

    cert = certify(patched(reference_target(), "set_runtime_context", refuse),
                   RunConfig(target_spec="no-switch", seed=0, rules=("ST-08",)))
    st08 = next(r for r in cert.rules if r.id == "ST-08")
    assert st08.outcome is Outcome.FAIL
    assert {f.message for f in st08.failures} == {  # once per provider
        "a target that ships the subagent tool must let its runtime context be switched off "
        "(set-runtime-context)"}
