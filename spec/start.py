"""The oracle for one child start: which rejections apply, else the child's depth.

Combines capability gating (CA-01, CA-03, CA-05), the edition's entry points (EN-02), depth
(DE family) and setup validation (TF-07/TF-08, PE-05, FR-03). ``faults`` lists every rejection
that applies, each with the stage of the start it is met at; which code a refusal must then
carry is what the rules fix about their order (:mod:`.faults`): ``codes`` what no MUST rule
forbids, ``preferred`` what CA-03 (a SHOULD) asks besides.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .depth import ABSENT, check_depth, decide_start_depth
from .errors import ErrorCode
from .faults import Fault, Stage, acceptable, deciding, preferred
from .persona import render_template
from .restriction import validate_restriction
from .vocabulary import Capability, Edition

#: Which request field asks for which capability (CA-01).
FIELD_CAPABILITY: Mapping[str, Capability] = {
    "maxDepth": Capability.DEPTH_LIMIT,
    "persona": Capability.PERSONA,
    "toolFilter": Capability.TOOL_FILTER,
    "outputSchema": Capability.OUTPUT_SCHEMA,
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

    @property
    def ok(self) -> bool:
        return not self.faults

    @property
    def codes(self) -> frozenset[ErrorCode]:
        """The codes a refusal may carry without breaking a MUST rule (docs/rules.md#CA-01,
        #CA-02, #DE-04, #EN-02: :func:`.faults.acceptable`); empty when it must succeed."""
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


def _valid_output_schema(schema: object) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "object"


def decide_start(state: StartState, request: Mapping[str, object]) -> StartOutcome:
    """Judge a start request ``{provider, prompt, maxDepth?, preset?, persona?, toolFilter?,
    outputSchema?}`` against ``state``. A key that is absent (not ``None``) is not asked for."""
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
    asked = {
        "maxDepth": request.get("maxDepth", ABSENT),
        "persona": request.get("persona", preset.persona if preset.persona is not None else ABSENT),
        "toolFilter": request.get(
            "toolFilter", preset.tool_filter if preset.tool_filter is not None else ABSENT
        ),
        "outputSchema": request.get(
            "outputSchema", preset.output_schema if preset.output_schema is not None else ABSENT
        ),
    }
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
    tool_filter = asked["toolFilter"]
    if tool_filter is not ABSENT:
        verdict = validate_restriction(tool_filter, state.global_names)
        if verdict.code is not None:
            faults.append(Fault(verdict.code, verdict.reason))
    schema = asked["outputSchema"]
    if schema is not ABSENT and not _valid_output_schema(schema):
        faults.append(
            Fault(ErrorCode.INVALID_OUTPUT_SCHEMA, "an output schema must be an object schema")
        )
    if faults:  # the persona's literal braces may be refused beside any other fault
        return StartOutcome(tuple(faults), persona_grammar=persona_grammar)
    return StartOutcome(
        (),
        depth.child_depth,
        persona_text,
        None if tool_filter is ABSENT else tool_filter,
        None if schema is ABSENT else schema,
        persona_grammar,
    )
