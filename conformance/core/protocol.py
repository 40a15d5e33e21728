"""The driver protocol's messages (docs/architecture.md).

These pydantic models are the single description of the driver API: the in-process transport
passes them as Python objects, the HTTP transport as JSON (its OpenAPI document is generated
from them). Names are camelCase because they are wire names.

Raw values: fields typed ``Any`` carry what the kit sends *unvalidated*, because validating
them is the target's job under test (a depth of ``-0.0``, a tool filter of ``"a"``). A field
left unset is *absent*, which differs from ``null``: see :func:`given`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from subagent_tck.spec import Capability, Component, Edition, Origin, PresentationMode, StopReason

from .dialect import PromptFrame, RestrictionChannel, ToolNameFolding

#: 1.1 added the run-code operation, 1.2 UNSUPPORTED_OPERATION, 1.3 the dialect a target
#: declares (docs/driver-api.md#dialect): restriction channels, filter grammar, prompt frame,
#: and ``serial`` (docs/driver-api.md#one-deployment-at-a-time)
PROTOCOL_VERSION = "1.3"


#: A field marked so (``json_schema_extra``) travels only when the caller set it, as a raw
#: (``Any``) field whose default is None does (transports/codec.py): a target that does not
#: know it never sees it.
SENT_WHEN_SET = "x-sent-when-set"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def given(model: BaseModel) -> dict[str, Any]:
    """The fields the caller set (absent ones left out, ``None`` kept): the wire form."""
    return {k: getattr(model, k) for k in model.model_fields_set}


# --- deployment set-up -------------------------------------------------------------------


class ToolSpec(_Model):
    """A tool the kit registers. Its body echoes what it was called with and is logged as an
    :class:`Invocation`, so that checks can see whether (and which) body ran."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    #: The server (group) the tool is served by, for a target whose declared filter grammar
    #: has server-level entries (docs/driver-api.md#dialect): an adapter serves each server's
    #: tools under that name. Unset: the adapter's own; sent only when set (typed ``Any`` so
    #: that the wire leaves it out, as it does an absent raw field).
    server: Any = None


class SectionSpec(_Model):
    """A deployment prompt section. ``guides`` names the tool it gives guidance for (TF-16): the
    section is left out of a scope's prompt where that tool is hidden."""

    name: str
    text: str
    guides: str | None = None


class PresetSpec(_Model):
    """A deployment-owned composition. ``spawnPolicy`` (raw ``{allow?, deny?}`` over preset
    names) is what the child's own scope may start (docs/rules.md#SP-01); ``model`` (raw) the
    model it runs on (docs/rules.md#MO-01). Each travels only when set."""

    name: str
    persona: Any = None
    toolFilter: Any = None
    outputSchema: Any = None
    spawnPolicy: Any = None
    model: Any = None
    #: The preset's own tools: a child composed from it has each as a scope-local tool, added
    #: after its filter (docs/rules.md#TF-04, docs/rules.md#TF-05), as a runtime's agent
    #: definition names servers of its own. Sent only when set, to a target declaring
    #: ``TargetInfo.presetTools``.
    tools: list[ToolSpec] | None = Field(None, json_schema_extra={SENT_WHEN_SET: True})


class SubagentToolConfig(_Model):
    """Configuration of one load of the model-facing ``subagent`` tool."""

    provider: str
    toolName: str = "subagent"
    maxDepth: Any = None  # unset: the host's live depth setting (ST-06)
    persona: Any = None
    toolFilter: Any = None
    agentOptions: Any = None  # default per-child options, {model?}: the children's model
    #: The one preset this load starts its children with (raw; unset: none). The model never
    #: chooses a preset: it chooses a tool (docs/rules.md#SP-02, its Decision).
    preset: Any = None


class DeploymentConfig(_Model):
    edition: Edition = Edition.PRESET_COMPOSITION
    persona: str | None = None  # the deployment persona template (deployment:persona-prefix)
    variables: dict[str, str] = Field(default_factory=dict)
    sections: list[SectionSpec] = Field(default_factory=list)  # after the persona, in order
    tools: list[ToolSpec] = Field(default_factory=list)  # initial global tools, in order
    presets: list[PresetSpec] = Field(default_factory=list)
    mode: PresentationMode = PresentationMode.NATIVE  # every agent's initial presentation mode
    hostDepth: Any = 1  # the live host depth setting (ST-06)
    runtimeContext: bool = True  # ST-08
    #: The name of a preset the root agent is started from: its persona and tool filter on the
    #: root's scope, as a main agent run from an agent definition (the ``root`` restriction
    #: channel, docs/driver-api.md#dialect). Sent only when set, to a target declaring it.
    rootPreset: Any = None
    #: Restrictions ``{allow?, deny?}`` every agent's scope of the deployment is under, as a
    #: runtime's permission rules (the ``permission`` channel, docs/driver-api.md#dialect). Sent
    #: only when set, to a target declaring it.
    permissions: Any = None
    #: The model the root (and every top-level agent) runs on, as the runtime names it (raw;
    #: unset: the runtime's own choice). A child composed without a model runs on its
    #: parent's (docs/rules.md#MO-01).
    model: Any = None


# --- observations ------------------------------------------------------------------------


class ProviderInfo(_Model):
    name: str
    capabilities: list[Capability]  # the controls it advertises
    inheritsParentContext: bool = False
    #: The target's own tool through which an agent's model starts this provider's children,
    #: choosing the preset by an argument (Claude Code's ``Agent``, opencode's ``task``), or
    #: None. What it offers a scope is judged like the ``subagent`` tool's (docs/rules.md#SP-02).
    delegationTool: str | None = None


class TargetInfo(_Model):
    name: str
    version: str = ""
    protocol: str = PROTOCOL_VERSION
    editions: list[Edition] = Field(default_factory=lambda: [Edition.PRESET_COMPOSITION])
    components: list[Component] = Field(default_factory=list)
    providers: list[ProviderInfo]
    #: The entry points through which the target puts a restriction on a scope
    #: (docs/driver-api.md#dialect); null: the live one alone (``install-restriction``).
    restrictionChannels: list[RestrictionChannel] | None = None
    #: The runtime's own text around the composed system text of its agents; null: none.
    promptFrame: PromptFrame | None = None
    #: How the runtime folds tool names together (docs/driver-api.md#dialect); null: it keeps
    #: every two apart (docs/rules.md#TF-01).
    toolNameFolding: ToolNameFolding | None = None
    #: How the runtime carries a prompt section that guides one tool where a tool has a
    #: server of its own (``ToolSpec.server``), in the adapter's words (docs/driver-api.md#dialect):
    #: TF-16 is then judged through the restriction channels on a target without live
    #: restrictions. None: the runtime has no guidance of its own (protocol 1.3).
    toolGuidance: str | None = None
    #: How the runtime gives a child tools of its own from the preset it is composed from
    #: (``PresetSpec.tools``), in the adapter's words: TF-04 and TF-05 are then judged through
    #: a child's composition on a target without live scope-local tools. None: a preset
    #: carries no tools (protocol 1.3).
    presetTools: str | None = None
    #: Why two deployments of this target cannot run at once, not even in two of its adapter
    #: processes side by side (a state every process shares: one home directory, one account,
    #: one port); ``certify --jobs N`` then runs it one check run at a time and says why
    #: (docs/certify.md#jobs). None: they can (protocol 1.3).
    serial: str | None = None


class AgentRef(_Model):
    """An agent: its id, its session, and its depth: the depth its durable header records
    (DE-01) or its effective depth (DE-02: the larger of header and runtime depth); a target
    may report either."""

    agent: str
    session: str
    depth: int


class ViewEntry(_Model):
    # frozen: the in-process transport hands out one instance per distinct entry (a view is
    # read many thousand times in a certification)
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    origin: Origin
    description: str = ""


class ToolSchema(_Model):
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)


class ToolResult(_Model):
    isError: bool = False
    code: str | None = None
    content: Any = None


class SdkCall(_Model):
    """One call of a ``run_code`` program to the scope's SDK: ``tools.<name>(arguments)``."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Section(_Model):
    name: str
    text: str


class SessionHeader(_Model):
    """A durable session header. ``delegationDepth`` is raw stored data (DE-06: a malformed
    value can exist and must be refused when read). ``descriptor`` is how a child was composed
    (FR-04), in wire names: ``{"provider": name, "preset"?: name, "persona"?: template,
    "toolFilter"?: {"allow"?, "deny"?}, "outputSchema"?: schema, "spawnPolicy"?: {"allow"?,
    "deny"?}, "model"?: name}``; top-level sessions have none."""

    session: str
    parent: str | None = None
    delegationDepth: Any = 0
    descriptor: dict[str, Any] | None = None


class Event(_Model):
    """One lifecycle event, in one ordered log (``seq`` increases).

    Kinds a conforming target emits: ``agent.published`` (a child became observable; ``data``:
    ``{"snapshot": {"view": [tool names], "prompt": [[section name, text], ...]}, "depth": n}``,
    the snapshot taken at the moment of publication, FR-02), ``run.started``, ``run.stopped``
    (``data``: ``{"stopReason": ...}``), ``run.disposed`` (ST-09), ``provider.added`` and
    ``provider.removed``. A rejected start emits none (CA-02, DE-04)."""

    seq: int
    kind: str
    agent: str | None = None
    session: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class Invocation(_Model):
    tool: str
    agent: str
    origin: Origin
    arguments: Any = None


class Observation(_Model):
    """Everything a rejected operation must leave as it was, read at one instant: the four
    observations ``sessions``, ``agents``, ``events`` and ``invocations`` in one answer."""

    sessions: list[SessionHeader]
    agents: list[str]
    events: list[Event]
    invocations: list[Invocation]


def snapshot_of(event_data: Mapping[str, Any]) -> tuple[list[list[str]] | None, list[str] | None]:
    """Read an ``agent.published`` event's ``snapshot`` (see :class:`Event`) as (prompt pairs,
    sorted view names), ``None`` for a part that is missing or unreadable. Sections may come as
    ``[name, text]`` pairs or ``{name, text}`` objects, view entries as names, ``{name, ...}``
    objects or ``[name, ...]`` lists: the one reading of the checks and the fuzzer."""
    snapshot = event_data.get("snapshot")
    if not isinstance(snapshot, Mapping):
        return None, None
    prompt = _pairs(snapshot.get("prompt"))
    view = snapshot.get("view")
    names: list[str] | None = None
    if isinstance(view, list):
        names = []
        for entry in view:
            if isinstance(entry, str):
                names.append(entry)
            elif isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
                names.append(entry["name"])
            elif isinstance(entry, (list, tuple)) and entry and isinstance(entry[0], str):
                names.append(entry[0])
            else:
                return prompt, None
        names.sort()
    return prompt, names


def _pairs(value: Any) -> list[list[str]] | None:
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if isinstance(item, Mapping) and "name" in item and "text" in item:
            out.append([item["name"], item["text"]])
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            out.append([item[0], item[1]])
        else:
            return None
    return out


# --- starting and running agents ---------------------------------------------------------


class StartRequest(_Model):
    """A child start. Unset controls are absent; set ones are sent as given (raw).
    ``spawnPolicy`` and ``model`` compose the child in both editions (docs/rules.md#SP-01,
    docs/rules.md#MO-01), over its preset's."""

    parent: str
    provider: Any
    prompt: str
    maxDepth: Any = None
    preset: Any = None
    persona: Any = None
    toolFilter: Any = None
    outputSchema: Any = None
    spawnPolicy: Any = None
    model: Any = None

    def controls(self) -> dict[str, Any]:
        """The controls this request asks for (set fields only)."""
        keys = ("maxDepth", "preset", "persona", "toolFilter", "outputSchema", "spawnPolicy",
                "model")
        return {k: getattr(self, k) for k in keys if k in self.model_fields_set}


class RunResult(_Model):
    """The outcome of a child run or of a turn of an agent."""

    agent: str
    session: str
    depth: int = 0
    stopReason: StopReason
    output: Any = None
    toolResults: list[ToolResult] = Field(default_factory=list)
    #: A start the runtime made as its parent's call of the provider's own delegation tool
    #: (``ProviderInfo.delegationTool``): the result that call got, errored as the runtime marks
    #: it (its wire's flag, or where the wire has none its own record of the call); None where
    #: the target does not report it. ST-09 reads it (docs/rules.md#ST-09,
    #: docs/driver-api.md#spawn-policies-and-models).
    delegated: ToolResult | None = None


# --- the model gateway's messages (OpenAI Chat Completions, reduced) ---------------------


class ToolCall(_Model):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Message(_Model):
    role: Literal["system", "user", "assistant", "tool"]
    content: Any = None
    toolCalls: list[ToolCall] = Field(default_factory=list)
    toolCallId: str | None = None
    isError: bool = False


class ModelRequest(_Model):
    """What an agent sent its model: system text, tool schemas, messages, the runtime
    context notices (ST-08) that came with this request, and the model it asked for (the chat
    body's ``model``; ``None`` when the runtime names none, docs/driver-api.md "Model
    gateway")."""

    agent: str
    system: str
    tools: list[ToolSchema]
    messages: list[Message]
    context: list[str] = Field(default_factory=list)
    model: str | None = None


class ModelReply(_Model):
    text: str | None = None
    toolCalls: list[ToolCall] = Field(default_factory=list)
    stopReason: StopReason = StopReason.COMPLETED


class ErrorBody(_Model):
    """A refusal (4xx) or a crash (5xx). ``code`` is one of the kit's stable codes
    (docs/driver-api.md#errors); ``UNSUPPORTED_OPERATION`` (protocol 1.2) says the runtime
    cannot express an optional operation (docs/driver-api.md#unsupported-operations)."""

    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)
