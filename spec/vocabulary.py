"""The words of docs/rules.md as Python values (docs/rules.md, "Vocabulary")."""

from __future__ import annotations

from enum import Enum
from typing import Final


class Level(str, Enum):
    """How much a rule binds: a MUST fails certification, a SHOULD is only reported."""

    MUST = "MUST"
    SHOULD = "SHOULD"


class Family(str, Enum):
    """The rule families of docs/rules.md, one per section."""

    TF = "TF"  # tool filter
    PE = "PE"  # persona
    DE = "DE"  # depth
    CA = "CA"  # capability gating
    FR = "FR"  # first-request consistency
    EN = "EN"  # entry points by edition
    ST = "ST"  # the model-facing subagent tool
    SP = "SP"  # spawn policy
    MO = "MO"  # model selection


class Capability(str, Enum):
    """What a provider advertises (docs/rules.md, "provider")."""

    DEPTH_LIMIT = "depthLimit"
    PERSONA = "persona"
    TOOL_FILTER = "toolFilter"
    OUTPUT_SCHEMA = "outputSchema"
    SPAWN_POLICY = "spawnPolicy"
    MODEL_SELECTION = "modelSelection"
    # Descriptive only: whether the child sees the parent's conversation. Not a control.
    INHERITS_PARENT_CONTEXT = "inheritsParentContext"


#: The controls a start can ask for; ``inheritsParentContext`` describes, it does not control.
CONTROLS: Final = (
    Capability.DEPTH_LIMIT,
    Capability.PERSONA,
    Capability.TOOL_FILTER,
    Capability.OUTPUT_SCHEMA,
    Capability.SPAWN_POLICY,
    Capability.MODEL_SELECTION,
)


class Edition(str, Enum):
    """Which entry points carry persona and tool filter for a new child."""

    PRESET_COMPOSITION = "preset-composition"
    REQUEST_CONTROLS = "request-controls"


DEFAULT_EDITION: Final = Edition.PRESET_COMPOSITION


class Component(str, Enum):
    """Optional parts a target may ship; rules of a component apply only when it is shipped."""

    SUBAGENT_TOOL = "subagent-tool"


class PresentationMode(str, Enum):
    """How a scope's tools are presented to its model.

    ``native``: every visible tool is a wire schema. ``ptc``: the wire carries only ``run_code``
    and the other visible tools are SDK bindings inside it. ``both``: the wire carries every
    visible tool and ``run_code`` with the SDK.
    """

    NATIVE = "native"
    PTC = "ptc"
    BOTH = "both"


class StopReason(str, Enum):
    """Why a model turn ended."""

    COMPLETED = "completed"
    ERROR = "error"
    ABORTED = "aborted"
    MAX_TOKENS = "max-tokens"
    REFUSAL = "refusal"


#: The reserved code-execution tool (TF-06): outside the filter, never registrable.
RUN_CODE: Final = "run_code"
#: The section name of the deployment persona; a child persona shadows it (PE-01).
PERSONA_SECTION: Final = "deployment:persona-prefix"
#: The scope-local tool that carries a child's output schema (FR-01).
STRUCTURED_OUTPUT: Final = "structured_output"
#: JavaScript's Number.MAX_SAFE_INTEGER: the top of the depth domain (DE, "Decision").
MAX_SAFE_INTEGER: Final = 2**53 - 1
#: The `subagent` tool's default name and its two model-facing parameters (ST-01).
SUBAGENT_TOOL_NAME: Final = "subagent"
SUBAGENT_TOOL_PARAMETERS: Final = ("description", "prompt")
#: The `subagent` tool's explicit "no cap" value (ST-05).
PROVIDER_MANAGED: Final = "provider-managed"
#: The host depth setting's initial value (ST-06).
INITIAL_HOST_DEPTH: Final = 1
