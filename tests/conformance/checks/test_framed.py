"""A composed system text judged inside a declared prompt frame (conformance/engine/checks/
_framed.py, docs/driver-api.md#dialect): the frame may only surround the composed text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.conformance.core.dialect import FrameText, PromptFrame, unframe
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    PresetSpec,
    ProviderInfo,
    Section,
)
from subagent_tck.conformance.engine.check import REGISTRY, CheckContext
from subagent_tck.conformance.engine.checks import load_checks
from subagent_tck.conformance.engine.checks._framed import (
    foreign_personas,
    framed_as,
    inspected_one,
    prompt_agrees,
    system_agrees,
)
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import PERSONA_SECTION, Edition
from subagent_tck.spec import Section as SpecSection

FRAME = FrameText(before="Header v={*}\n\nYou are an agent.\n\n", after="\n\nNotes: today is {*}.")
PERSONA = "ROLE: a careful reviewer of pull requests."
SIBLING = "ROLE: the sibling's own long persona text."
COMPOSED = (SpecSection(PERSONA_SECTION, PERSONA), SpecSection("guide", "Use the tools."))
INSIDE = f"{PERSONA}\n\nUse the tools."


def framed(inside: str = INSIDE, version: str = "1.2", day: str = "Monday") -> str:
    return (FRAME.before.replace("{*}", version) + inside
            + FRAME.after.replace("{*}", day))


CHILD_FRAME = PromptFrame(child=FRAME)


def context(frame: PromptFrame | None = CHILD_FRAME) -> CheckContext:
    load_checks()
    return CheckContext(target=reference_target(), check=REGISTRY["persona-child-shadow"],
                        edition=Edition.PRESET_COMPOSITION,
                        provider=ProviderInfo(name="spawn", capabilities=[]), providers=[],
                        seed=0, max_examples=1, frame=frame)


def test_a_framed_system_text_splits_into_the_frame_and_what_it_surrounds() -> None:
    parts = unframe(FRAME, framed(version="9.9.9-x", day="2026-12-03"))
    assert parts is not None and parts.composed == INSIDE
    assert "9.9.9-x" in parts.frame and INSIDE not in parts.frame
    assert unframe(FRAME, INSIDE) is None  # no frame around it
    assert unframe(FRAME, framed(version="1\nExtra line")) is None  # {*} stays on one line


@given(st.text(max_size=40))
def test_any_composed_text_comes_back_whole_from_its_frame(inside: str) -> None:
    parts = unframe(FRAME, framed(inside))
    assert parts is not None and parts.composed == inside


def test_the_composed_text_inside_the_frame_agrees_and_nothing_else_does() -> None:
    ctx = context()
    assert system_agrees(ctx, framed(), COMPOSED)
    assert system_agrees(ctx, INSIDE, COMPOSED)  # unframed is the composed text itself
    assert not system_agrees(ctx, framed("Use the tools."), COMPOSED)  # the persona dropped
    assert not system_agrees(ctx, framed(f"{SIBLING}\n\nUse the tools."), COMPOSED)  # swapped
    assert system_agrees(ctx, framed(), COMPOSED, foreign=[SIBLING])  # not in the frame
    assert not system_agrees(ctx, framed(version=SIBLING), COMPOSED, foreign=[SIBLING])
    assert not system_agrees(context(None), framed(), COMPOSED)  # no frame declared


def test_inspection_may_report_the_sections_or_the_whole_framed_text() -> None:
    ctx = context()
    pairs = [[s.name, s.text] for s in COMPOSED]
    assert prompt_agrees(ctx, pairs, COMPOSED)
    assert prompt_agrees(ctx, [["system", framed()]], COMPOSED)
    assert not prompt_agrees(ctx, [["system", framed("Use the tools.")]], COMPOSED)
    assert not prompt_agrees(context(None), [["system", framed()]], COMPOSED)
    assert framed_as(ctx, framed(), INSIDE) and not framed_as(context(None), framed(), INSIDE)
    assert inspected_one(ctx, [Section(name="system", text=framed())])
    assert not inspected_one(ctx, [Section(name=PERSONA_SECTION, text=framed())])


@pytest.mark.parametrize(("own", "left"), [
    (PERSONA, ["DEPLOYMENT persona of the whole deployment", SIBLING]),
    (None, ["DEPLOYMENT persona of the whole deployment", PERSONA, SIBLING]),
])
def test_the_other_agents_personas_are_those_of_the_deployment_and_its_presets(
        own: str | None, left: list[str]) -> None:
    cfg = DeploymentConfig(persona="DEPLOYMENT persona of the whole deployment",
                           presets=[PresetSpec(name="a", persona=PERSONA),
                                    PresetSpec(name="b", persona=SIBLING)])
    assert foreign_personas(cfg, own) == left
