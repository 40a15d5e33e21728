"""A composed system text inside the runtime's declared frame (docs/driver-api.md#dialect).

A runtime may put text of its own before and after the system text the kit composes (Claude
Code's agent preamble and its notes for agent threads). A target that declares that frame
(``TargetInfo.promptFrame``) has the persona and first-request rules judged on the text inside
it: the system text must be the frame's ``before``, then **exactly** the composed text (the
persona and the kit's sections, each where the composition puts it), then its ``after``. The
frame is literal text (``{*}``: a run of characters within one line), so it can only surround
the composed text: a runtime that drops the composed persona, swaps in another agent's, or
leaves a raw placeholder fails the rules as before (docs/rules.md#PE-01, #PE-04, #PE-05), and
another agent's persona is refused in the frame's own text too. Prompt inspection may report
the composed sections or the whole framed text as one section.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from subagent_tck.spec import PERSONA_SECTION, Section, assemble_system_prompt, render_template
from subagent_tck.spec.persona import NamedText

from ...core.dialect import FrameText, Unframed, unframe
from ...core.protocol import DeploymentConfig
from ...core.protocol import Section as SectionModel
from ..check import CheckContext
from ._composed import composed_in
from ._observed import as_pairs

Who = Literal["child", "root"]
#: A text of another agent this long is searched for in the frame's own text (a shorter one
#: could be a word of the frame).
DISTINCTIVE = 16
def frame_of(ctx: CheckContext, who: Who) -> FrameText | None:
    """The frame the target declared around a ``who``'s composed text (None: none)."""
    return None if ctx.frame is None else getattr(ctx.frame, who)


def framed_as(ctx: CheckContext, system: str, text: str, who: Who = "child") -> bool:
    """Whether a request's system text is ``text`` (what inspection reports, assembled), or
    ``text`` inside the declared frame (PE-04: one channel)."""
    if system == text:
        return True
    frame = frame_of(ctx, who)
    parts = None if frame is None else unframe(frame, system)
    return parts is not None and parts.composed == text


def _foreign(parts: Unframed, foreign: Iterable[str]) -> bool:
    return any(len(text) >= DISTINCTIVE and text in parts.frame for text in foreign)


def system_agrees(ctx: CheckContext, system: str, expected: Sequence[NamedText],
                  who: Who = "child", foreign: Iterable[str] = ()) -> bool:
    """Whether a request's system text is the assembly of ``expected``, or (a frame declared)
    that assembly exactly inside the frame, with none of the ``foreign`` texts (another
    agent's persona) in the frame's own text."""
    want = assemble_system_prompt(expected)
    if system == want:
        return True
    frame = frame_of(ctx, who)
    parts = None if frame is None else unframe(frame, system)
    return parts is not None and parts.composed == want and not _foreign(parts, foreign)


def _whole(observed: Sequence[Sequence[str]]) -> str:
    return assemble_system_prompt([Section(name, text) for name, text in observed])


def prompt_agrees(ctx: CheckContext, observed: Sequence[Sequence[str]],
                  expected: Sequence[NamedText], who: Who = "child",
                  foreign: Iterable[str] = ()) -> bool:
    """Whether prompt inspection gives the ``expected`` sections, or (a frame declared) the
    whole framed text whose inside is their assembly (:func:`system_agrees`)."""
    if [list(o) for o in observed] == as_pairs(expected):
        return True
    return frame_of(ctx, who) is not None and system_agrees(ctx, _whole(observed), expected,
                                                            who, foreign)


def carries_framed(ctx: CheckContext, system: str, inspected: Sequence[Sequence[str]],
                   expected: Sequence[NamedText], who: Who = "child",
                   foreign: Iterable[str] = ()) -> bool:
    """A request's system text is the agent's inspected prompt (one channel, PE-04) and it
    carries the composition (FR-01): the composed sections stand in the inspected prompt in
    order (a runtime's own sections may stand between them), or (a frame declared) the system
    text is the composition inside the frame and inspection reports either."""
    if system == _whole(inspected) and composed_in(inspected, as_pairs(expected)):
        return True
    return frame_of(ctx, who) is not None and system_agrees(ctx, system, expected, who, foreign) \
        and (system == _whole(inspected) or [list(o) for o in inspected] == as_pairs(expected))


def composed_or_framed(ctx: CheckContext, inspected: Sequence[Sequence[str]],
                       expected: Sequence[NamedText], who: Who = "child",
                       foreign: Iterable[str] = ()) -> bool:
    """Prompt inspection carries the composed sections in order (EN-01, as FR-01 judges it),
    or (a frame declared) reports the framed text whose inside is their assembly."""
    return composed_in(inspected, as_pairs(expected)) or (
        frame_of(ctx, who) is not None and system_agrees(ctx, _whole(inspected), expected, who,
                                                         foreign))


def foreign_personas(cfg: DeploymentConfig, own: str | None) -> list[str]:
    """The persona texts of the other agents of ``cfg`` (the deployment's, rendered, and every
    preset's) that are not ``own`` nor part of it: none may stand in a child's frame."""
    texts: list[str] = []
    if cfg.persona is not None:
        rendered = render_template(cfg.persona, cfg.variables).text
        texts += [t for t in (cfg.persona, rendered) if isinstance(t, str)]
    texts += [p.persona for p in cfg.presets if isinstance(p.persona, str)]
    return [t for t in dict.fromkeys(texts) if t and (own is None or t not in own)]


def inspected_one(ctx: CheckContext, inspected: Sequence[SectionModel]) -> bool:
    """A framed target's prompt inspection that reports the whole framed text as one section
    (not split by name): PE-04's "exactly one persona section" is then that one text, framed as
    declared."""
    frame = frame_of(ctx, "child")
    return (frame is not None and len(inspected) == 1 and inspected[0].name != PERSONA_SECTION
            and unframe(frame, inspected[0].text) is not None)
