"""The prompts and model requests, compared with the oracle's composition (PE-01..PE-05, TF-16).

An agent's prompt sections in order, a published snapshot's, a request's system text (the
oracle's prompt assembled, beside the runtime's own sections where inspection shows them, or
inside a prompt frame the target declared: docs/driver-api.md#dialect), the model a request
names (docs/rules.md#MO-01, #MO-02), and the rule a wrong prompt breaks.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.core.dialect import unframe
from subagent_tck.spec import (
    PERSONA_SECTION,
    ErrorCode,
    Section,
    assemble_system_prompt,
    render_template,
)

from .lockstep_views import ViewChecks
from .model import AgentModel


def _with_own(expected: list[Section], inspected: list[Section], kit: set[str]) -> list[Section]:
    """``expected`` with the sections of ``inspected`` whose names are not in ``kit`` put back
    where inspection shows them: before the first kit section, after the kit section they
    follow, or after the last one."""
    leading: list[Section] = []
    after: dict[str, list[Section]] = {}
    trailing: list[Section] = []
    anchor: str | None = None
    pending: list[Section] = []
    for section in inspected:
        if section.name in kit:
            (leading if anchor is None else after.setdefault(anchor, [])).extend(pending)
            pending, anchor = [], section.name
        else:
            pending.append(section)
    (leading if anchor is None else trailing).extend(pending)
    out = list(leading)
    for section in expected:
        out += [section, *after.pop(section.name, [])]
    return [*out, *(s for rest in after.values() for s in rest), *trailing]


class PromptChecks(ViewChecks):
    """The comparisons of prompt sections, system texts and requested models."""

    def check_prompt(self, label: str) -> None:
        """The agent's prompt sections, in order (PE-01..PE-05, TF-16; FR-04 when resumed)."""
        target = self.agent_id(label)
        found, error = self.call("prompt", lambda: self.deployment.prompt(target))
        if error is not None:
            grammar = self.persona_grammar(label)
            if error.code is not ErrorCode.INVALID_TEMPLATE or not grammar:
                raise error
            # a spelling of the implementation's own grammar may be refused (PE-05), but the
            # start that accepted it published an agent whose setup cannot finish (FR-03)
            raise self.diverge(
                "prompt", f"the prompt of {label}, whose persona uses {', '.join(grammar)}: "
                f"refused with {error.code.value} ({error.message}) after its start was "
                "accepted; a persona the target refuses must fail the start", "the start "
                "refused, or the persona rendered", error.to_json(), "FR-03")
        assert found is not None
        observed = [[s.name, s.text] for s in found]
        expected = [[s.name, s.text] for s in self.model.prompt(self.agent(label))]
        if not self.prompt_agrees(self.agent(label), observed, expected):
            raise self.diverge(
                "prompt", f"prompt sections of {label}", expected, observed,
                self.prompt_rule(label, expected, self.model.kit_sections(observed)),
            )

    def persona_grammar(self, label: str) -> tuple[str, ...]:
        """The implementation-grammar parts of the persona ``label``'s prompt renders: its own
        composition's (a child: the start's outcome), else the deployment persona's."""
        agent = self.agent(label)
        if agent.persona_grammar or agent.kind in ("child", "resumed") or \
                self.model.persona is None:
            return agent.persona_grammar
        return render_template(self.model.persona, self.model.variables).grammar

    def system_agrees(self, agent: AgentModel, agent_id: str, system: str) -> bool:
        """Whether a request's system text is ``agent``'s: the oracle's prompt assembled, or
        that prompt with the runtime's own sections (:meth:`DeploymentModel.kit_sections`)
        where the target's prompt inspection places them now (one channel, docs/rules.md#PE-04:
        the runtime's text reaches the model the way inspection shows it). A target that
        declares a prompt frame may put its own text around it (docs/driver-api.md#dialect)."""
        expected = list(self.model.prompt(agent))
        if system == assemble_system_prompt(expected):
            return True
        inside = self.framed(agent, system)
        if inside is not None and inside != system:
            return self.system_agrees(agent, agent_id, inside)
        found, error = self.call("prompt", lambda: self.deployment.prompt(agent_id))
        if error is not None or not found:
            return False
        kit = {n for n, _ in self.model.kit_sections([[s.name, s.text] for s in found])}
        return system == assemble_system_prompt(
            _with_own(expected, [Section(s.name, s.text) for s in found], kit))

    def prompt_agrees(self, agent: AgentModel, observed: list[list[str]],
                      expected: list[list[str]]) -> bool:
        """Whether prompt sections a target showed (inspection, a published snapshot) are
        ``agent``'s: the expected ones beside the runtime's own, or the whole text of a frame
        the target declared around their assembly (docs/driver-api.md#dialect)."""
        if self.model.kit_sections(observed) == expected:
            return True
        return len(observed) == 1 and self.framed(agent, str(observed[0][1])) == \
            assemble_system_prompt([Section(n, t) for n, t in expected])

    def framed(self, agent: AgentModel, system: str) -> str | None:
        """The text inside the frame the target declared around ``agent``'s system text, or
        None (no frame declared, or ``system`` not framed so)."""
        frame = self.info.promptFrame
        around = None if frame is None else frame.root if agent.kind in ("root", "created") \
            else frame.child
        inside = None if around is None else unframe(around, system)
        return None if inside is None else inside.composed

    def prompt_rule(self, label: str, expected: list[list[str]], observed: list[list[str]]) -> str:
        agent = self.agent(label)
        size = max(len(expected), len(observed))
        pad = [["", ""]] * size
        for e, o in zip((expected + pad)[:size], (observed + pad)[:size], strict=True):
            if e == o:
                continue
            name = e[0] or o[0]
            if "{{" in o[1] and "{{" not in e[1]:
                return "PE-05"  # a raw placeholder reached the prompt
            if name == PERSONA_SECTION:
                own = self.model.presets.get(str(agent.preset))
                if "persona" in agent.overrides and own is not None and (
                        own.persona is not None
                        and o[1] == render_template(own.persona, self.model.variables).text):
                    return "EN-03"  # the preset's persona won over the request's
                if agent.preset is not None and self.another_presets_persona(
                        agent.preset, o[1]):
                    return "EN-01"  # another preset's persona: the wrong preset was composed
                if agent.kind == "resumed" and agent.persona is not None:
                    return "FR-04"  # the descriptor's persona was not re-applied
                if agent.persona == "":
                    return "PE-03"
                if agent.persona is None and agent.kind in ("child", "resumed"):
                    return "PE-02"
                return "PE-01"
            if any(name == s[0] and s[2] is not None for s in self.model.sections):
                return "TF-16"
            return "PE-01"
        return "PE-01"

    def check_models(self, agent: AgentModel, requests: list[Any], rule: str) -> None:
        """MO-01 (a child's first request), MO-02 (its later ones, a resumed child's): every
        request names the agent's model, where a rule judges it (:attr:`AgentModel.model_judged`:
        the provider that runs it advertises modelSelection)."""
        if not agent.model_judged:
            return
        for request in requests:
            if request.model != agent.model:
                raise self.diverge(
                    "model", f"a request of {agent.label} names the model {request.model!r}",
                    agent.model, request.model, rule)
