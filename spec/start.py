"""The oracle for one child start: which rejections apply, else the child's depth.

Combines capability gating (CA-01, CA-03, CA-05), the edition's entry points (EN-02), the
parent's spawn policies (SP-01), depth (DE family) and setup validation (TF-07/TF-08, PE-05,
FR-03, a child's own spawn policy and model). ``faults`` lists every rejection that applies,
each with the stage of the start it is met at; which code a refusal must then carry is what the
rules fix about their order (:mod:`.faults`): ``codes`` what no MUST rule forbids, ``preferred``
what CA-03 (a SHOULD) asks besides. An unadvertised control is refused whatever its value
(CA-01).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from .depth import ABSENT, check_depth, decide_start_depth
from .errors import ErrorCode
from .faults import Fault, Stage, acceptable, deciding, preferred
from .model_selection import child_model, model_problem
from .persona import render_template
from .restriction import Restriction, validate_restriction, validate_spawn_policy
from .spawn_policy import admits_preset
from .vocabulary import Capability, Edition

#: Which request field asks for which capability (CA-01).
FIELD_CAPABILITY: Mapping[str, Capability] = {
    "maxDepth": Capability.DEPTH_LIMIT,
    "persona": Capability.PERSONA,
    "toolFilter": Capability.TOOL_FILTER,
    "outputSchema": Capability.OUTPUT_SCHEMA,
    "spawnPolicy": Capability.SPAWN_POLICY,
    "model": Capability.MODEL_SELECTION,
}


@dataclass(frozen=True)
class StartOutcome:
    faults: tuple[Fault, ...] = ()
    child_depth: int | None = None
    #: The composition the child must carry when the start succeeds.
    persona: str | None = None
    tool_filter: object = None
    output_schema: object = None
    #: Parts of the composed persona that are the implementation's grammar (a ``{{`` nothing
    #: closes, a ``}}`` that closes nothing: docs/rules.md#PE-05): read as literal prose in
    #: ``persona``; a target may refuse the start with ``INVALID_TEMPLATE`` for them instead.
    persona_grammar: tuple[str, ...] = ()
    #: The child's own spawn policy (raw, valid over the deployment's presets), or None.
    spawn_policy: object = None
    #: The model every request of the child carries (MO-01): composed, else the parent's.
    model: str | None = None

    @property
    def ok(self) -> bool:
        return not self.faults

    @property
    def codes(self) -> frozenset[ErrorCode]:
        """The codes a refusal may carry without breaking a MUST rule (docs/rules.md#CA-01,
        #CA-02, #DE-04, #EN-02, #SP-01: :func:`.faults.acceptable`); empty when it must
        succeed."""
        return acceptable(self.faults, bool(self.persona_grammar))

    @property
    def preferred(self) -> frozenset[ErrorCode]:
        """The codes of a refusal that also puts the capability check before the value check
        (docs/rules.md#CA-03, a SHOULD)."""
        return preferred(self.faults, bool(self.persona_grammar))

    @property
    def deciding(self) -> Fault | None:
        """The fault whose rule fixes the code (None: the start must succeed)."""
        return deciding(self.faults)


@dataclass(frozen=True)
class Preset:
    """A deployment-owned composition (docs/rules.md, "preset")."""

    persona: str | None = None
    tool_filter: object = None
    output_schema: object = None
    #: ``{allow?, deny?}`` over preset names for the child's own scope (SP-01).
    spawn_policy: object = None
    #: The model the child runs on (MO-01).
    model: object = None


@dataclass(frozen=True)
class StartState:
    """What the oracle needs to know about the deployment at the moment of the start."""

    edition: Edition
    providers: Mapping[str, Collection[Capability]]
    global_names: Collection[str] = ()
    presets: Mapping[str, Preset] = field(default_factory=dict)
    variables: Mapping[str, str] = field(default_factory=dict)
    deployment_persona: str | None = None
    parent_header_depth: object = 0
    parent_runtime_depth: object = ABSENT
    #: The spawn policies on the parent's scope now (installed and composed, SP-01).
    parent_policies: Sequence[Restriction] = ()
    #: The model the parent's requests carry (MO-01; None: it reports none).
    parent_model: str | None = None


def _valid_output_schema(schema: object) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "object"


def decide_start(state: StartState, request: Mapping[str, object]) -> StartOutcome:
    """Judge a start request ``{provider, prompt, maxDepth?, preset?, persona?, toolFilter?,
    outputSchema?, spawnPolicy?, model?}`` against ``state``. A key that is absent (not
    ``None``) is not asked for."""
    faults: list[Fault] = []
    provider = request.get("provider")
    if not isinstance(provider, str) or provider not in state.providers:
        return StartOutcome((Fault(ErrorCode.NO_PROVIDER, f"no provider named {provider!r}"),))
    caps = set(state.providers[provider])
    preset = Preset()
    if "preset" in request:
        name = request["preset"]
        if not isinstance(name, str) or name not in state.presets:
            return StartOutcome((Fault(ErrorCode.UNKNOWN_PRESET, f"no preset named {name!r}"),))
        preset = state.presets[name]
    if state.edition is Edition.PRESET_COMPOSITION:
        carried = [k for k in ("persona", "toolFilter") if k in request]
        if carried:
            faults.append(
                Fault(
                    ErrorCode.REQUEST_CONTROLS_REFUSED,
                    f"{' and '.join(carried)} in a start request (EN-02): use a preset",
                )
            )
    # Effective composition: the request's own value wins over the preset's; a control given
    # as null counts as absent (docs/rules.md, TF "Decision"), except maxDepth, where null is a
    # value outside the depth domain (DE-05).
    request = {k: v for k, v in request.items() if v is not None or k == "maxDepth"}
    from_preset = {"persona": preset.persona, "toolFilter": preset.tool_filter,
                   "outputSchema": preset.output_schema, "spawnPolicy": preset.spawn_policy,
                   "model": preset.model}
    asked = {"maxDepth": request.get("maxDepth", ABSENT)}
    for key, value in from_preset.items():
        asked[key] = request.get(key, ABSENT if value is None else value)
    for key, value in asked.items():
        if value is not ABSENT and FIELD_CAPABILITY[key] not in caps:
            cap = FIELD_CAPABILITY[key]
            faults.append(
                Fault(
                    ErrorCode.UNSUPPORTED_CAPABILITY,
                    f"provider {provider!r} does not advertise {cap.value}",
                    cap,
                )
            )
    name = request.get("preset")
    if isinstance(name, str) and not admits_preset(state.parent_policies, name):
        # after the gate (CA-03 orders only the gate first), before anything is created
        faults.append(Fault(ErrorCode.SPAWN_DENIED,
                            f"the parent's spawn policies refuse the preset {name!r}"))
    max_depth = asked["maxDepth"]
    if max_depth is not ABSENT and Capability.DEPTH_LIMIT not in caps:
        # A cap the provider does not advertise is refused, never applied (CA-01): a start
        # that a cap of 0 would refuse with DEPTH_EXCEEDED is still UNSUPPORTED_CAPABILITY.
        # Only the value's own validity is a second fault (its order is CA-03's, a SHOULD).
        domain = check_depth(max_depth)
        if domain.value is None:
            faults.append(Fault(ErrorCode.INVALID_DEPTH, f"maxDepth: {domain.advice()}",
                                stage=Stage.VALUE))
        max_depth = ABSENT
    depth = decide_start_depth(state.parent_header_depth, state.parent_runtime_depth, max_depth)
    if depth.code is not None:
        own = max_depth is not ABSENT and check_depth(max_depth).value is None
        faults.append(Fault(depth.code, depth.reason,
                            stage=Stage.VALUE if own else Stage.DEPTH))
    persona = asked["persona"]
    persona_text: str | None = None
    persona_grammar: tuple[str, ...] = ()
    if persona is ABSENT:
        persona = state.deployment_persona
    if persona is not None:
        if not isinstance(persona, str):
            faults.append(Fault(ErrorCode.INVALID_REQUEST, "persona must be a string"))
        else:
            rendered = render_template(persona, state.variables)
            if rendered.code is not None:
                faults.append(Fault(rendered.code, rendered.reason))
            persona_text = rendered.text
            persona_grammar = rendered.grammar
    tool_filter, policy = asked["toolFilter"], asked["spawnPolicy"]
    for value, validate, known in ((tool_filter, validate_restriction, state.global_names),
                                   (policy, validate_spawn_policy, state.presets)):
        if value is not ABSENT:
            verdict = validate(value, known)
            if verdict.code is not None:
                faults.append(Fault(verdict.code, verdict.reason))
    schema = asked["outputSchema"]
    if schema is not ABSENT and not _valid_output_schema(schema):
        faults.append(
            Fault(ErrorCode.INVALID_OUTPUT_SCHEMA, "an output schema must be an object schema")
        )
    model = asked["model"]
    if model is not ABSENT and model_problem(model):
        # a model's validity is checked with the composition (MO-01's Decision: a non-empty
        # string); the rules give it no order among setup faults (:mod:`.faults`)
        faults.append(Fault(ErrorCode.INVALID_REQUEST, model_problem(model), stage=Stage.SETUP))
    if faults:  # the persona's literal braces may be refused beside any other fault
        return StartOutcome(tuple(faults), persona_grammar=persona_grammar)
    return StartOutcome(
        (),
        depth.child_depth,
        persona_text,
        None if tool_filter is ABSENT else tool_filter,
        None if schema is ABSENT else schema,
        persona_grammar,
        None if policy is ABSENT else policy,
        child_model(model, state.parent_model),
    )
