"""The deployment under the lockstep: its :class:`Setup`, the oracle's model of it, the map from
the fuzzer's labels to the target's ids, and one :class:`~.step.Step` run on both sides.

:class:`LockstepCore` deploys the target, keeps the :class:`~.model.DeploymentModel` beside it
and raises :class:`~.step.Divergence` (with the rules :data:`.rulemap.OBSERVATION_RULES` names)
when the comparisons above it (:mod:`.lockstep_refusals`, :mod:`.lockstep_views`,
:mod:`.lockstep_prompts`, joined in :class:`.lockstep.Lockstep`) find a difference; a target
operation that raises anything but a :class:`TckError` is a crash (docs/driver-api.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar, cast

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
    Capability,
    Edition,
    ErrorCode,
    PresentationMode,
    TckError,
)

from .ahead import Ahead, Read
from .lexicon import CLASSIC, Lexicon
from .model import AgentModel, DeploymentModel, ScopeModel, SessionModel
from .rulemap import OBSERVATION_RULES
from .step import Divergence, Finding, Step, jsonable
from .tool_model import ToolModel

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


class LockstepCore:
    """One deployment of ``target`` and its model, a step at a time (the comparisons are the
    layers above: :class:`.lockstep.Lockstep`)."""

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
