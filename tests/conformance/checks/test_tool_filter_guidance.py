"""TF-16 (conformance/engine/checks/tool_filter_guidance.py): guidance follows visibility, on a
target with live restrictions and, through its restriction channels, on one whose runtime has
guidance of its own (``TargetInfo.toolGuidance``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from subagent_tck.conformance.core.dialect import ChannelKind, RestrictionChannel
from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.spec import Edition, ErrorCode, TckError

from .tiny_runner import run

CHECK = ["tool-filter-guidance-follows-visibility"]
ROOT = Path(__file__).resolve().parents[3]


class _NoLive(ReferenceDeployment):
    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no live restrictions here")


class _Guided(ReferenceTarget):
    """The reference without live restrictions, declaring ``channels`` and, unless None,
    guidance of its own (the reference composes a guiding section into a scope's system text
    where the tool it guides is visible)."""

    def __init__(self, channels: list[RestrictionChannel], guidance: str | None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.channels, self.guidance = channels, guidance
        self.deployment_class = _NoLive

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"restrictionChannels": self.channels,
                                                 "toolGuidance": self.guidance})


def _tf16(target: ReferenceTarget) -> Any:
    verdicts = run(target, CHECK, max_examples=2, editions=[Edition.PRESET_COMPOSITION])
    outcomes = {rule: outcome for (rule, _, _), outcome in verdicts.outcomes.items()}
    return outcomes.get("TF-16"), verdicts


def test_without_live_restrictions_tf16_goes_through_each_declared_channel() -> None:
    for kind in (ChannelKind.CHILD, ChannelKind.ROOT):
        outcome, verdicts = _tf16(_Guided([RestrictionChannel(kind=kind)],
                                          "a section in the system text"))
        assert outcome == "pass", (kind, verdicts.explain())


def test_guidance_kept_where_its_tool_is_hidden_fails_tf16_through_every_channel() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from examples.providers.guidance_kept_where_hidden import KeepsGuidanceHost
    for kind in (ChannelKind.CHILD, ChannelKind.ROOT):
        outcome, verdicts = _tf16(_Guided([RestrictionChannel(kind=kind)], "a section",
                                          host_class=KeepsGuidanceHost))
        assert outcome == "fail", (kind, verdicts.explain())
        assert any("must be left out of every request" in f.message
                   for f in verdicts.failures), verdicts.explain()


def test_without_guidance_of_its_own_tf16_is_not_applicable_through_channels() -> None:
    outcome, verdicts = _tf16(_Guided([RestrictionChannel(kind=ChannelKind.CHILD)], None))
    assert outcome == "n/a", verdicts.explain()


def test_a_runtime_that_gives_the_guidance_nowhere_leaves_tf16_not_applicable_not_passed(
) -> None:
    """Absence where the tool is hidden proves nothing when the guidance never comes, not even
    where the tool is offered: the case is not applicable (docs/rules.md#TF-16)."""
    from subagent_tck.reference import Host, assemble_sections
    from subagent_tck.spec import Section

    class _Silent(Host):
        def prompt(self, agent: str) -> tuple[Section, ...]:
            scope = self.agent(agent).scope
            guided = {s.guides for s in self.deployment_sections() if s.guides is not None}
            visible = {e.name for e in self.resolver.view(scope)} - guided
            return assemble_sections(self.deployment_sections(), scope.sections(), visible,
                                     self.variables, self.render_template)

    outcome, verdicts = _tf16(_Guided([RestrictionChannel(kind=ChannelKind.CHILD)], "a section",
                                      host_class=_Silent))
    assert outcome == "n/a", verdicts.explain()


def _host_leaving_guidance_out(where: str) -> type:
    """A reference host that leaves every guiding section out of some scopes, whatever they
    see: ``restricted`` (a scope under any restriction: its guided tool kept or not) or
    ``children`` (every agent but the root)."""
    from subagent_tck.reference import Host, assemble_sections
    from subagent_tck.spec import Section

    class _Host(Host):
        def prompt(self, agent: str) -> tuple[Section, ...]:
            state = self.agent(agent)
            scope = state.scope
            visible = {e.name for e in self.resolver.view(scope)}
            silent = bool(scope.restrictions()) if where == "restricted" else \
                state.parent is not None
            if silent:
                visible -= {s.guides for s in self.deployment_sections() if s.guides}
            return assemble_sections(self.deployment_sections(), scope.sections(), visible,
                                     self.variables, self.render_template)
    return _Host


def test_a_restriction_that_keeps_the_tool_but_drops_its_guidance_fails_tf16() -> None:
    """Guidance follows visibility both ways: where an unrestricted scope of the same kind is
    given it, a scope whose restriction keeps the tool must be given it too (a runtime that
    drops every server's guidance from any filtered agent, hidden tool or not, would
    otherwise pass the hidden cases by accident)."""
    for kind in (ChannelKind.CHILD, ChannelKind.ROOT):
        outcome, verdicts = _tf16(_Guided([RestrictionChannel(kind=kind)], "a section",
                                          host_class=_host_leaving_guidance_out("restricted")))
        assert outcome == "fail", (kind, verdicts.explain())
        assert any("must keep its guidance" in f.message for f in verdicts.failures), \
            verdicts.explain()


def test_guidance_given_to_the_root_alone_judges_only_the_roots_channels() -> None:
    """A child channel's cases say nothing where no unrestricted child is given the guidance:
    not applicable through it alone, judged (and passed) through the root's."""
    host = _host_leaving_guidance_out("children")
    outcome, verdicts = _tf16(_Guided([RestrictionChannel(kind=ChannelKind.CHILD)], "a section",
                                      host_class=host))
    assert outcome == "n/a", verdicts.explain()
    outcome, verdicts = _tf16(_Guided([RestrictionChannel(kind=ChannelKind.CHILD),
                                       RestrictionChannel(kind=ChannelKind.ROOT)], "a section",
                                      host_class=host))
    assert outcome == "pass", verdicts.explain()
