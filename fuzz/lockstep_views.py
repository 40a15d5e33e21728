"""The views and their presentation, compared after every change (TF-01..TF-06, TF-09..TF-14).

The view of a scope and the global view as sets of ``(name, origin)`` without duplicate names;
after a registry change the first agent and the three newest, after a change to one scope that
scope, the global view and the first other agent (TF-13); the wire schemas and the run_code SDK
bindings against the view (docs/rules.md#TF-12). A wrong view is given the rule that explains it:
a child composed from the wrong preset or with the request's filter dropped (EN-01, EN-03), the
subagent tool component's (:func:`.tool_model.view_rule`) or the registry's
(:func:`.rulemap.view_rule`).
"""

from __future__ import annotations

import copy
from typing import Any

from subagent_tck.spec import (
    PERSONA_SECTION,
    RUN_CODE,
    Edition,
    render_template,
    resolve_view,
    validate_restriction,
)

from .ahead import Read
from .lockstep_core import LockstepCore
from .model import COMPOSED, AgentModel
from .rulemap import view_rule
from .tool_model import schema_problem
from .tool_model import view_rule as view_rule_of_tools


def _tool_view_rule(lock: ViewChecks, agent: AgentModel | None, names: set[str],
                    observed: set[tuple[str, str]]) -> str | None:
    model = lock.subagent_tools
    return None if model is None else view_rule_of_tools(model, lock.model, agent, names,
                                                         observed)


def _dropped(lock: ViewChecks, agent: AgentModel, seen: set[tuple[str, str]]) -> bool:
    """Whether ``seen`` is ``agent``'s view without its composed filter (and with its preset's
    filter when it has one): the request's toolFilter was dropped (EN-03)."""
    asked = agent.overrides.get("toolFilter")
    if not isinstance(asked, dict):
        return False
    rules = [r for label, r in agent.scope.restrictions.items() if label != COMPOSED]
    preset = lock.model.presets.get(str(agent.preset))
    if preset is not None and preset.tool_filter is not None:
        verdict = validate_restriction(preset.tool_filter, lock.model.globals)
        if verdict.restriction is not None:
            rules.append(verdict.restriction)
    view = resolve_view(lock.model.globals, rules, agent.scope.locals, agent.scope.mode)
    expected = {(e.name, e.origin.value) for e in lock.model.view(agent)}
    if not expected != seen == {(e.name, e.origin.value) for e in view}:
        return False
    # A filter dropped looks like a filter read wrong where the two views agree: an empty list
    # read as absent (TF-03), an allow list matched ignoring case when only case variants are
    # registered (TF-01). Installing the same value on the child tells them apart: a target that
    # reads it right as a restriction shows the expected view then, so it was the start that
    # dropped the filter. (Diagnosis only: the lockstep stops at this divergence, so the change
    # does not matter.)
    try:
        lock.deployment.install_restriction(lock.ids[agent.label], copy.deepcopy(asked))
        again = {(e.name, e.origin.value) for e in lock.deployment.view(lock.ids[agent.label])}
    except Exception:  # no evidence: the filter had no effect, unless an empty list was in it
        return not any(v == [] for v in asked.values())
    return again == expected


def _check_tool_schemas(lock: ViewChecks, label: str, found: list[Any]) -> None:
    model = lock.subagent_tools
    problem = None if model is None else schema_problem(model, found)
    if problem is not None:
        raise lock.diverge(*problem)


class ViewChecks(LockstepCore):
    """The comparisons of views, wire schemas and SDK bindings, and the reads they make."""

    def observed_view(self, label: str | None) -> list[tuple[str, str]]:
        agent = None if label is None else self.agent_id(label)
        entries = self._guard("view", lambda: self.deployment.view(agent))
        return [(e.name, e.origin.value) for e in entries]

    def expected_view(self, label: str | None) -> set[tuple[str, str]]:
        agent = None if label is None else self.agent(label)
        return {(e.name, e.origin.value) for e in self.model.view(agent)}

    def check_view(self, label: str | None) -> None:
        observed = self.observed_view(label)
        seen = set(observed)
        expected = self.expected_view(label)
        who = "the global view" if label is None else f"the view of {label}"
        if len(seen) != len(observed) or len({n for n, _ in observed}) != len(observed):
            raise self.diverge(
                "view-duplicates", f"{who} lists a name twice", sorted(expected), observed
            )
        if seen != expected:
            agent = None if label is None else self.agent(label)
            rule = (self.preset_rule(agent) or self.override_rule(agent, seen)
                    or _tool_view_rule(self, agent, {n for n, _ in seen ^ expected}, seen)
                    or view_rule(self.model, agent, seen, expected))
            missing = sorted(expected - seen)
            extra = sorted(seen - expected)
            raise self.diverge(
                "global-view" if label is None else "view",
                f"{who}: missing {missing}, unexpected {extra}", sorted(expected), sorted(seen),
                rule,
            )

    def check_all_views(self) -> None:
        """After a change that reaches every scope: the global view, the views of the first
        agent and of the three newest ones (a later read or change of any other scope compares
        its view then), and the presentation of the first agent."""
        self.check_view(None)
        labels = list(self.model.agents)
        for label in labels[:1] + labels[1:][-3:]:
            self.check_view(label)
        if labels:
            self.check_presentation(labels[0])

    def check_scope_views(self, label: str) -> None:
        """After a change to one scope: that scope, and (TF-13) the global view and the first
        other agent, which would show a leak at once; later reads check the rest."""
        self.check_view(label)
        self.check_presentation(label)
        self.check_view(None)
        for other in self.model.agents:
            if other != label:
                self.check_view(other)
                break

    def all_views_reads(self) -> list[Read]:
        """What :meth:`check_all_views` reads, as the model stands now."""
        labels = list(self.model.agents)
        reads: list[Read] = [("view", {"agent": None})]
        reads += [("view", {"agent": self.ids[label]}) for label in labels[:1] + labels[1:][-3:]]
        return reads + (self._presentation_reads(labels[0]) if labels else [])

    def scope_views_reads(self, label: str) -> list[Read]:
        """What :meth:`check_scope_views` reads for ``label``."""
        reads: list[Read] = [("view", {"agent": self.ids[label]}),
                             *self._presentation_reads(label), ("view", {"agent": None})]
        other = next((o for o in self.model.agents if o != label), None)
        return reads + ([("view", {"agent": self.ids[other]})] if other else [])

    def _presentation_reads(self, label: str) -> list[Read]:
        agent = self.ids[label]
        return [("tool_schemas", {"agent": agent}), ("sdk_bindings", {"agent": agent})]

    def override_rule(self, agent: AgentModel | None, seen: set[tuple[str, str]]) -> str | None:
        """EN-03 when a child started with the request's own toolFilter shows the view the
        preset's filter would give (the preset won over the request), or, in request-controls,
        the view it would have without the request's filter (the filter was gated but never
        applied; a filter with an empty list, which a TF-03 misreading would also drop, is
        told apart by :func:`_dropped`'s probe)."""
        if agent is None or agent.kind != "child" or "toolFilter" not in agent.overrides:
            return None
        if self.setup.edition is Edition.REQUEST_CONTROLS and _dropped(self, agent, seen):
            return "EN-03"
        preset = self.model.presets.get(str(agent.preset))
        if preset is None or preset.tool_filter is None:
            return None
        verdict = validate_restriction(preset.tool_filter, self.model.globals)
        if verdict.restriction is None:
            return None
        rules = [r for label, r in agent.scope.restrictions.items() if label != COMPOSED]
        view = resolve_view(self.model.globals, [*rules, verdict.restriction],
                            agent.scope.locals, agent.scope.mode)
        return "EN-03" if {(e.name, e.origin.value) for e in view} == seen else None

    def preset_rule(self, agent: AgentModel | None) -> str | None:
        """EN-01 when a child started with a preset carries another preset's persona: it was
        composed from the wrong preset (its view is then wrong too); EN-03 when it carries
        its preset's persona although the request brought its own."""
        if agent is None or agent.preset is None or agent.kind != "child":
            return None
        target = self.agent_id(agent.label)
        shown = {s.name: s.text for s in self._guard(
            "prompt", lambda: self.deployment.prompt(target))}.get(PERSONA_SECTION)
        wanted = {s.name: s.text for s in self.model.prompt(agent)}.get(PERSONA_SECTION)
        if shown == wanted:
            return None
        own = self.model.presets.get(agent.preset)
        if "persona" in agent.overrides and own is not None and own.persona is not None and (
                shown == render_template(own.persona, self.model.variables).text):
            return "EN-03"
        return "EN-01" if self.another_presets_persona(agent.preset, shown) else None

    def another_presets_persona(self, preset: str, shown: str | None) -> bool:
        """Whether ``shown`` is the rendered persona of a preset other than ``preset`` (EN-01:
        the child was composed from the wrong preset, a lookup that fell back)."""
        return any(
            other != preset and spec.persona is not None
            and shown == render_template(spec.persona, self.model.variables).text
            for other, spec in self.model.presets.items())

    def check_presentation(self, label: str) -> None:
        """The wire schemas and the run_code SDK of ``label`` against its view (TF-12)."""
        self.check_schemas(label)
        self.check_sdk(label)

    def check_schemas(self, label: str) -> None:
        target = self.agent_id(label)
        found = self._guard("tool_schemas", lambda: self.deployment.tool_schemas(target))
        names = [s.name for s in found]
        expected = self.model.wire(self.agent(label))
        _check_tool_schemas(self, label, found)
        if set(names) != expected or len(names) != len(set(names)):
            raise self.diverge(
                "schemas", f"wire schemas of {label} differ from its view", sorted(expected),
                names, self.resolver_rule(label, set(names) ^ expected),
            )

    def check_sdk(self, label: str) -> None:
        target = self.agent_id(label)
        found = self._guard("sdk_bindings", lambda: self.deployment.sdk_bindings(target))
        expected = self.model.sdk(self.agent(label))
        if set(found) != expected or len(found) != len(set(found)):
            raise self.diverge(
                "sdk", f"run_code SDK bindings of {label} differ from its view",
                sorted(expected), list(found), self.resolver_rule(label, set(found) ^ expected),
            )

    def resolver_rule(self, label: str, names: set[str], presented: bool = True) -> str:
        """TF-12 when the target's own view is right (its presentation, lookup or execution
        drifted from it), else the rule that explains its wrong view. Where the view is right
        and ``run_code`` is what the wire schemas or the SDK (``presented``) got wrong, TF-06:
        the tool the mode offers was not offered (docs/rules.md#TF-06); a lookup or a call of
        it that drifts from a right view is TF-12's, like any other name's."""
        if self.view_agrees(label):
            return "TF-06" if presented and RUN_CODE in names else "TF-12"
        seen = set(self.observed_view(label))
        return view_rule(self.model, self.agent(label), seen, self.expected_view(label))

    def view_agrees(self, label: str) -> bool:
        """Whether the target's own view of ``label`` is what the oracle expects."""
        return set(self.observed_view(label)) == self.expected_view(label)
