"""Drive one deployment of a target and the spec oracle in lockstep, one :class:`Step` at a time.

:class:`Lockstep` owns a fresh deployment, the :class:`~.model.DeploymentModel` and the map
from the fuzzer's labels to the target's ids. :meth:`Lockstep.apply` runs one step on both sides
and compares what can be observed, raising :class:`~.step.Divergence` at the first difference:

- accept or refuse, and the error code (TF-06..TF-08, TF-14, CA, DE, EN, FR-03, PE-05);
- after every change, views as sets of ``(name, origin)`` without duplicate names: of the
  changed scope, the global view and other agents (after a registry change: the first agent and
  the three newest; a later read or change of any scope compares its view then), and the wire
  schemas and SDK bindings against the view (TF-01..TF-06, TF-09..TF-14);
- after every refusal, that nothing changed: sessions, agents, events, model requests and tool
  invocations (TF-07, TF-08, DE-04, CA-02, FR-03);
- for a start: the child's depth and header (DE-01, DE-02), its published snapshot (FR-02), its
  first model request (FR-01, PE-01..PE-05, EN-01, EN-03) and the parent's prompt (PE-01).

The operations themselves live in :mod:`.operations`; this module holds set-up and comparisons.
"""

from __future__ import annotations

import contextlib
import copy
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from subagent_tck.conformance.core.dialect import unframe
from subagent_tck.conformance.core.exitcode import TARGET_CODES
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    PresetSpec,
    SectionSpec,
    TargetInfo,
    ToolSpec,
)
from subagent_tck.conformance.core.target import Deployment, Target
from subagent_tck.conformance.core.unsupported import Unsupported, deployed, guard
from subagent_tck.spec import (
    PERSONA_SECTION,
    RUN_CODE,
    Capability,
    Edition,
    ErrorCode,
    PresentationMode,
    Section,
    TckError,
    assemble_system_prompt,
    render_template,
    resolve_view,
    validate_restriction,
)

from .ahead import Ahead, Read
from .lexicon import CLASSIC, Lexicon
from .model import COMPOSED, AgentModel, DeploymentModel, ScopeModel, SessionModel
from .rulemap import OBSERVATION_RULES, view_rule
from .step import Divergence, Finding, Step, jsonable
from .tool_model import ToolModel, schema_problem
from .tool_model import view_rule as view_rule_of_tools

T = TypeVar("T")

@dataclass(frozen=True)
class Setup:
    """The deployment the steps run in: edition, initial presentation mode, initial globals,
    the deployment persona and the words its presets, variables and sections are written in."""

    edition: Edition = Edition.PRESET_COMPOSITION
    mode: PresentationMode = PresentationMode.NATIVE
    tools: tuple[str, ...] = ()
    persona: str = CLASSIC.persona
    lexicon: Lexicon = CLASSIC

    def config(self, advertised: Collection[Capability] = ()) -> DeploymentConfig:
        """The deployment; the newer controls (a spawn policy, models) only where a provider
        advertises them (``advertised``)."""
        model = self.lexicon.deployment_model(advertised)
        return DeploymentConfig(
            **({} if model is None else {"model": model}),
            edition=self.edition,
            persona=self.persona,
            variables=self.lexicon.variable_values(),
            sections=[SectionSpec(name=n, text=t, guides=g)
                      for n, t, g in self.lexicon.section_specs()],
            presets=[
                PresetSpec(
                    name=name, persona=p.persona, toolFilter=p.tool_filter,
                    outputSchema=p.output_schema,
                    **{k: v for k, v in (("spawnPolicy", p.spawn_policy), ("model", p.model))
                       if v is not None},
                )
                for name, p in self.lexicon.preset_specs(advertised).items()
            ],
            mode=self.mode,
            tools=[ToolSpec(name=name, description=f"global {name}") for name in self.tools],
        )


#: Operations that change nothing in a conforming target (a refused step is checked anyway).
_READS = frozenset({"view", "schemas", "sdk", "lookup", "prompt", "headers"})


def _tool_view_rule(lock: Lockstep, agent: AgentModel | None, names: set[str],
                    observed: set[tuple[str, str]]) -> str | None:
    model = lock.subagent_tools
    return None if model is None else view_rule_of_tools(model, lock.model, agent, names,
                                                         observed)


def _dropped(lock: Lockstep, agent: AgentModel, seen: set[tuple[str, str]]) -> bool:
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


def _check_tool_schemas(lock: Lockstep, label: str, found: list[Any]) -> None:
    model = lock.subagent_tools
    problem = None if model is None else schema_problem(model, found)
    if problem is not None:
        raise lock.diverge(*problem)


class Lockstep:
    """One deployment of ``target`` and its model, compared after every step."""

    def __init__(self, target: Target, setup: Setup, info: TargetInfo | None = None) -> None:
        info = info or target.info()
        self.setup = setup
        #: every capability a provider of the target advertises
        self.advertised = frozenset(c for p in info.providers for c in p.capabilities)
        self.gateway = Gateway()
        self.steps: list[Step] = []
        self._snapshot: tuple[Any, ...] | None = None
        self._verified = False
        self.model = DeploymentModel(
            edition=setup.edition,
            providers={p.name: frozenset(p.capabilities) for p in info.providers},
            presets=setup.lexicon.preset_specs(self.advertised),
            variables=setup.lexicon.variable_values(),
            persona=setup.persona,
            sections=setup.lexicon.section_specs(),
            mode=setup.mode,
            root_model=setup.lexicon.deployment_model(self.advertised),
        )
        self.policy_handles: dict[str, str] = {}  # spawn policy label -> target handle
        self.provider_names = [p.name for p in info.providers]
        self.info = info
        self.ids: dict[str, str] = {}  # agent label -> target agent id
        self.session_ids: dict[str, str] = {}  # session label -> target session id
        self.handles: dict[str, str] = {}  # restriction label -> target handle
        #: the subagent tool component's model, once a step touched it (:meth:`tool_model`)
        self.subagent_tools: ToolModel | None = None
        made: list[Ahead] = []  # reads carried by the next change (fuzz/ahead.py)

        def deploy() -> Deployment:
            made.append(Ahead(target.deploy(setup.config(self.advertised), self.gateway)))
            return cast(Deployment, made[0])

        # an UNSUPPORTED_OPERATION answer to an optional operation raises Unsupported (the
        # machine draws another example); to a core one it is a crash (docs/driver-api.md)
        self.deployment: Deployment = guard(self._guard(
            "deploy", lambda: deployed(deploy, setup.mode)))
        self.ahead = made[0]
        self._before: list[Read] = []
        root = self._guard("root", self.deployment.root)
        self.ids["root"] = root.agent
        self.session_ids["root"] = root.session
        self.model.step = -1  # the deployment's own tools come before every step
        for name in setup.tools:
            self.model.register_global(name)
        self.model.add_agent(
            AgentModel("root", "root", ScopeModel(mode=setup.mode),
                       model=self.model.root_model), SessionModel("root", 0)
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing is best effort; the verdict is made
            self.deployment.close()

    # --- running steps ----------------------------------------------------------------------

    def apply(self, step: Step, handler: Callable[..., None] | None) -> None:
        """Run ``step`` with ``handler``, its operation (:func:`.operations.apply` looks it
        up: the lockstep sits below the operations it runs), on the target and the model;
        :class:`Divergence` at a difference."""
        self.model.step = len(self.steps)
        self.steps.append(step)
        if handler is None:
            raise TckError(ErrorCode.USAGE, f"unknown fuzz operation {step.op!r} in a replay")
        self._verified = False
        self._before = []
        self.ahead.plan()
        handler(self, **step.args)
        if step.op not in _READS and not self._verified:
            self._snapshot = None  # the step was accepted: the target changed

    def tool_model(self) -> ToolModel:
        """The ``subagent`` tool component's model of this deployment (made on first use)."""
        if self.subagent_tools is None:
            self.subagent_tools = ToolModel(
                capabilities={p.name: frozenset(p.capabilities) for p in self.info.providers},
                inherits={p.name: p.inheritsParentContext for p in self.info.providers},
                present={p.name for p in self.info.providers},
            )
        return self.subagent_tools

    def diverge(
        self, observation: str, message: str, expected: Any = None, observed: Any = None,
        rule: str | None = None,
    ) -> Divergence:
        rules = list(OBSERVATION_RULES.get(observation, ()))
        if rule is not None:
            rules = [rule, *[r for r in rules if r != rule]]
        step = self.steps[-1] if self.steps else Step(op="deploy")
        finding = Finding(
            step=len(self.steps), op=step.op, observation=observation, rules=rules,
            message=message, expected=jsonable(expected), observed=jsonable(observed),
        )
        return Divergence(finding, list(self.steps), self.setup)

    def _guard(self, what: str, action: Callable[[], T]) -> T:
        try:
            return action()
        except (TckError, Unsupported):
            raise
        except Exception as exc:
            raise self.diverge(
                "crash", f"{what} raised {type(exc).__name__}: {exc}", "a result or a TckError",
                f"{type(exc).__name__}: {exc}",
            ) from exc

    def call(self, what: str, action: Callable[[], T]) -> tuple[T | None, TckError | None]:
        """Run a target operation: (result, None) or (None, the refusal)."""
        try:
            return self._guard(what, action), None
        except TckError as exc:
            if exc.code in TARGET_CODES:  # a broken connection or protocol is no answer
                raise
            return None, exc

    def agent_id(self, label: str) -> str:
        self.agent(label)
        return self.ids[label]

    def session_id(self, label: str) -> str:
        """The target's id of the session labelled ``label`` (USAGE if no step made it)."""
        if label not in self.session_ids or label not in self.model.sessions:
            raise TckError(
                ErrorCode.USAGE,
                f"step {len(self.steps)} names session {label!r}, which no earlier step created "
                f"(known: {', '.join(self.model.sessions)}); the replay file is corrupt",
            )
        return self.session_ids[label]

    def agent(self, label: str) -> AgentModel:
        found = self.model.agents.get(label)
        if found is None:
            raise TckError(
                ErrorCode.USAGE,
                f"step {len(self.steps)} names agent {label!r}, which no earlier step created "
                f"(live: {', '.join(self.model.agents)}); the replay file is corrupt",
            )
        return found

    # --- comparisons --------------------------------------------------------------------------

    def snapshot(self) -> tuple[Any, ...]:
        """Everything a refused operation must leave unchanged. Cached: it is re-read only
        after a step that may have changed the target was accepted."""
        if self._snapshot is None:
            self._snapshot = self._take_snapshot()
        return self._snapshot

    def changed(self) -> None:
        """The fuzzer itself changed the target (a planted header): forget the snapshot."""
        self._snapshot = None

    def snapshot_later(self) -> Callable[[], tuple[Any, ...]]:
        """:meth:`snapshot` as it is before the next change, taken with it (one round trip
        with the change where the target serves batches: fuzz/ahead.py)."""
        if self._snapshot is not None:
            known = self._snapshot
            return lambda: known
        exchanges = self._requests_made()
        self._before = [("observe", {})]

        def take() -> tuple[Any, ...]:
            seen = self._guard("observe", lambda: self.ahead.early("observe"))
            self._snapshot = self._snapshot_of(seen, exchanges)
            return self._snapshot

        return take

    def read_later(self, name: str, **kwargs: Any) -> Callable[[], Any]:
        """A read as it answers before the next change, taken with it (see
        :meth:`snapshot_later`)."""
        self._before.append((name, kwargs))
        return lambda: self._guard(name, lambda: self.ahead.early(name, **kwargs))

    def expect(self, after: list[Read]) -> None:
        """The reads that follow the next change (and those :meth:`snapshot_later` put
        before it): carried with it where the target serves batches."""
        self.ahead.plan(self._before, after)
        self._before = []

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

    def _take_snapshot(self) -> tuple[Any, ...]:
        seen = self._guard("observe", self.deployment.observe)  # one read, one round trip
        return self._snapshot_of(seen, self._requests_made())

    def _requests_made(self) -> int:
        """Every model request made, a reply still being computed included: a scripted reply
        that acts on the target first (an abort) may let the target's operation return before
        the gateway records the exchange, and that request is no change of a later step."""
        return len(self.gateway.requests())

    def _snapshot_of(self, seen: Any, exchanges: int) -> tuple[Any, ...]:
        sessions = tuple(
            (h.session, h.parent, repr(h.delegationDepth), repr(h.descriptor))
            for h in seen.sessions
        )
        return (
            sessions,
            tuple(seen.agents),
            len(seen.events),
            exchanges,
            len(seen.invocations),
        )

    def unchanged(self, before: tuple[Any, ...], observation: str, rule: str | None) -> None:
        after = self._take_snapshot()
        self._snapshot, self._verified = after, True
        if after != before:
            parts = ("sessions", "agents", "events", "model requests", "tool invocations")
            changed = [name for name, a, b in zip(parts, before, after, strict=True) if a != b]
            if before[3] != after[3]:  # name the requests: a late one of an earlier turn shows
                late = self.gateway.requests()[before[3]:after[3]]
                agents = sorted({r.agent for r in late})
                changed[changed.index("model requests")] = (
                    f"model requests ({after[3] - before[3]} more, from agent(s) "
                    f"{', '.join(agents)}: a request still arriving from an earlier turn after "
                    "its operation returned shows this way too)")
            raise self.diverge(
                observation, f"a refused operation changed {', '.join(changed)}",
                dict(zip(parts, before, strict=True)), dict(zip(parts, after, strict=True)),
                rule,
            )

    def check_outcome(
        self, observation: str, expected_codes: frozenset[ErrorCode], may_accept: bool,
        error: TckError | None, rule_if_wrong: str | None, reason: str = "",
    ) -> bool:
        """Compare accept/refuse and the code; True when the target accepted."""
        wanted = sorted(c.value for c in expected_codes)
        if error is None:
            if not expected_codes or may_accept:
                return True
            raise self.diverge(
                observation, f"accepted, expected a refusal with {' or '.join(wanted)}"
                + (f" ({reason})" if reason else ""), wanted, "accepted", rule_if_wrong,
            )
        if error.code in expected_codes:
            return False
        expected: Any = wanted or "accepted"
        raise self.diverge(
            observation, f"refused with {error.code.value}: {error.message}; expected "
            + (" or ".join(wanted) if wanted else "it to be accepted"),
            expected, error.to_json(), rule_if_wrong,
        )

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

    def check_prompt(self, label: str) -> None:
        """The agent's prompt sections, in order (PE-01..PE-05, TF-16; FR-04 when resumed)."""
        target = self.agent_id(label)
        found = self._guard("prompt", lambda: self.deployment.prompt(target))
        observed = [[s.name, s.text] for s in found]
        expected = [[s.name, s.text] for s in self.model.prompt(self.agent(label))]
        if not self.prompt_agrees(self.agent(label), observed, expected):
            raise self.diverge(
                "prompt", f"prompt sections of {label}", expected, observed,
                self.prompt_rule(label, expected, self.model.kit_sections(observed)),
            )

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

    def check_offending(self, error: TckError, offending: tuple[str, ...]) -> None:
        """TF-08: the error lists every offending name (in ``details`` or the message)."""
        listed = error.details.get("offending")
        names = [str(n) for n in listed] if isinstance(listed, list) else []
        missing = [
            n for n in offending
            if n not in names and not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])",
                                                error.message)
        ]
        if missing:
            raise self.diverge(
                "restrict-offending", f"the refusal does not name {missing}", list(offending),
                error.to_json(),
            )
