"""The child the FR checks compose and start through the provider under test, the controls
they compose it with (a persona, an allow or a deny filter, an output schema: docs/rules.md#FR-01)
and what the oracle says its prompt and tools are.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.spec import PresentationMode, Section, StartOutcome

from ...core.protocol import DeploymentConfig, ModelRequest, StartRequest
from ...core.target import Deployment
from ..check import CheckContext
from ._composed import config, expected_sections, expected_system, expected_view, expected_wire
from ._framed import carries_framed
from ._observed import as_pairs, sections_of, wire_names
from ._starts import OUTPUT_SCHEMA, composition, judge, oracle_accepts, provider_name, start_request
from ._texts import Vocabulary


def doomed(texts: Vocabulary) -> str:
    """The global a case unregisters after deploying (the last of its tools)."""
    return texts.tools[-1]


def allow_filter(texts: Vocabulary) -> dict[str, list[str]]:
    """Allow minus deny: of the globals the child sees the first one and :func:`doomed`."""
    t = texts.tools
    return {"allow": [t[0], t[2], doomed(texts)], "deny": [t[2]]}


def deny_filter(texts: Vocabulary) -> dict[str, list[str]]:
    return {"deny": [texts.tools[1]]}


def everything(texts: Vocabulary) -> dict[str, Any]:
    return {"persona": texts.child_persona, "toolFilter": allow_filter(texts),
            "outputSchema": OUTPUT_SCHEMA}


class Child:
    """A deployment with one composed child started through the provider under test."""

    def __init__(
        self,
        ctx: CheckContext,
        rule: str,
        texts: Vocabulary,
        controls: dict[str, Any],
        *,
        mode: PresentationMode = PresentationMode.NATIVE,
        prompt: str = "child task",
    ) -> None:
        comp = composition(ctx.edition, controls, texts.presets[0])
        self.globals = texts.tools
        self.cfg: DeploymentConfig = config(ctx.edition, tools=self.globals, texts=texts,
                                            presets=comp.presets, mode=mode)
        self.mode = mode
        self.dep: Deployment = ctx.deploy(self.cfg)
        self.request: StartRequest = start_request(self.dep.root().agent, provider_name(ctx),
                                                   prompt, comp.fields)
        self.outcome: StartOutcome = judge(ctx, self.cfg, self.globals, self.request)
        oracle_accepts(self.outcome, "child start")
        with ctx.step(rule, "starting a composed child"):
            result = self.dep.start(self.request)
        self.agent, self.session = result.agent, result.session

    def sections(self) -> list[list[str]]:
        return as_pairs(self.composed())

    def composed(self) -> tuple[Section, ...]:
        return expected_sections(self.cfg, self.outcome)

    def system(self) -> str:
        return expected_system(self.cfg, self.outcome)

    def wire(self) -> list[str]:
        view = expected_view(self.outcome, self.globals, self.mode)
        return expected_wire(view, self.mode)

    def expect_carried(self, ctx: CheckContext, rule: str, first: ModelRequest, agent: str,
                       persona: str, tools: str) -> None:
        """``first``, a request of ``agent`` (this child, or the child resumed), carries the
        composed persona and sections as prompt inspection reports them (``persona`` words
        the expectation) and exactly the child's tool schemas (``tools``)."""
        inspected = sections_of(self.dep, agent)
        ctx.expect(
            rule,
            carries_framed(ctx, first.system, inspected, self.composed()),
            persona,
            {"composed": self.sections(), "system": self.system()},
            {"inspected": inspected, "system": first.system},
        )
        ctx.expect(rule, wire_names(first) == self.wire(), tools, self.wire(), wire_names(first))


def model_requests(ctx: CheckContext, agent: str, rule: str,
                   at_least: int = 1) -> list[ModelRequest]:
    requests = ctx.gateway.requests(agent)
    ctx.expect(
        rule,
        len(requests) >= at_least,
        f"the child made at least {at_least} model request(s)",
        at_least,
        len(requests),
    )
    return requests
