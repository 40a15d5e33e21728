"""A part of the zoo (not an entry): the reference as a runtime that frames a child's system
prompt with text of its own, as Claude Code does (docs/driver-api.md#dialect).

:class:`FramedTarget` declares a prompt frame for children: a header line with a version and a
preamble before the composed system text, notes with a date after it. Each child's model
requests carry ``before`` + the composed text + ``after``; prompt inspection still reports the
composed sections (the text inside the frame). An entry overrides :meth:`FramedHost.inside`
(what the runtime puts inside the frame) with its bug.
"""

from __future__ import annotations

from subagent_tck.conformance.core.dialect import FrameText, PromptFrame
from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host

#: The frame as declared: ``{*}`` stands for the version and the date, which vary.
FRAME = FrameText(
    before="x-frame-runtime: version={*}; agent=subagent\n\n"
           "You are an agent of FrameRuntime. Follow the instructions below.\n\n",
    after="\n\nNotes:\n- Report your findings in one final message.\n- Today is {*}.")


class FramedHost(Host):
    """Frames every child's system text (top-level agents' stay as composed)."""

    def inside(self, agent: str) -> str:
        """What the runtime puts inside the frame: the composed system text."""
        return super().system_text(agent)

    def system_text(self, agent: str) -> str:
        if self.agent(agent).parent is None:
            return super().system_text(agent)
        before = FRAME.before.replace("{*}", "2.1.0-frame", 1)
        after = FRAME.after.replace("{*}", "2026-12-03", 1)
        return before + self.inside(agent) + after


class FramedTarget(ReferenceTarget):
    host_class = FramedHost

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"promptFrame": PromptFrame(child=FRAME)})
