"""ST: the model-facing ``subagent`` tool (component ``subagent-tool``), rules ST-01..ST-09.

The kit loads the tool bound to one provider, scripts a calling agent's model (by a marker in
its turn prompt) to call it with a child marker in the ``prompt`` argument, and scripts the child
by that marker. Verdicts come only from the driver protocol (views, schemas, lookups, published
agents, events, sessions, tool results of a turn) and from the gateway's record: the caller's
next request carries the tool result message (``isError``, ``content``) and ``context`` notices.

Wording (ST-03) is judged by cues, since each implementation words it in its own way: a fresh
child's text must say the prompt stands alone or that the child does not see the conversation
(and must not claim it is seeded with it); a fork's text must say the child already has the
conversation or that the prompt states only what is new (and must not deny that it sees it).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.spec import (
    INITIAL_HOST_DEPTH,
    PROVIDER_MANAGED,
    SUBAGENT_TOOL_NAME,
    SUBAGENT_TOOL_PARAMETERS,
    Capability,
    ErrorCode,
    StopReason,
    check_depth,
)

from ..check import CheckContext, check
from ..gateway import call, text
from ..protocol import (
    Message,
    ModelReply,
    ModelRequest,
    ProviderInfo,
    RunResult,
    SubagentToolConfig,
    ToolSchema,
)
from ..target import Deployment

_FRESH = re.compile(
    r"stand-?alone|self-contained|(does not|doesn't|cannot|can't|will not|won't|never) see|"
    r"no access to|without access",
    re.I,
)
_FORK = re.compile(
    r"what is new|what's new|only (the )?new|new information|completed turns|seeded|"
    r"already (sees|has|knows)|sees (this|the) conversation|copy of (this|the) conversation",
    re.I,
)
_CLAIMS_SEEING = re.compile(
    r"seeded|completed turns|already sees|sees (this|the) conversation", re.I
)
_DENIES_SEEING = re.compile(
    r"(does not|doesn't|cannot|can't|will not|won't|never) see|no access to", re.I
)
_WORK_DIRECTLY = re.compile(r"direct|yourself|(not|n't|no longer) (delegate|start|spawn)", re.I)
_PUBLISHED = "agent.published"
_SECONDARY = "subagent_second"


# --- driving turns through the gateway ---------------------------------------------------


@dataclass
class _Turn:
    """What one scripted turn of a calling agent showed."""

    result: RunResult
    requests: list[ModelRequest]
    tool_message: Message | None = None
    child_marker: str = ""
    child_agents: list[str] = field(default_factory=list)
    new_published: set[str] = field(default_factory=set)
    new_sessions: int = 0

    @property
    def content(self) -> str:
        return "" if self.tool_message is None else _text(self.tool_message.content)

    def has_code(self, code: ErrorCode) -> bool:
        return any(r.code == code.value for r in self.result.toolResults) or (
            code.value in self.content
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _published(dep: Deployment) -> set[str]:
    return {e.agent for e in dep.events() if e.kind == _PUBLISHED and e.agent}


class _Driver:
    """Scripts and runs turns of the agents of one deployment."""

    def __init__(self, ctx: CheckContext, dep: Deployment) -> None:
        self.ctx, self.dep = ctx, dep
        self._callers: dict[str, str] = {}
        self._count = 0

    def marker(self, kind: str) -> str:
        self._count += 1
        return f"<<{kind}-{self._count}>>"

    def child(self, *replies: Any) -> tuple[str, dict[str, str]]:
        """Script a child; returns its marker and the tool arguments that start it."""
        marker = self.ctx.gateway.script(self.marker("child"), *(replies or (text("ok"),)))
        return marker, {"description": "a delegated task", "prompt": f"{marker} do the task"}

    def delegate(
        self,
        agent: str,
        tool: str = SUBAGENT_TOOL_NAME,
        child: Sequence[Any] = (),
        before_call: Callable[[], None] | None = None,
    ) -> _Turn:
        """A turn in which ``agent`` calls ``tool`` once to start a scripted child."""
        marker, arguments = self.child(*child)
        call_id = f"call-{self._count}"
        reply = call(tool, arguments, call_id)
        if before_call is not None:
            hook = before_call

            def first(_: ModelRequest) -> ModelReply:
                hook()
                return reply

            return self.turn(agent, first, text("caller done"), call_id=call_id, child=marker)
        return self.turn(agent, reply, text("caller done"), call_id=call_id, child=marker)

    def turn(self, agent: str, *replies: Any, call_id: str = "", child: str = "") -> _Turn:
        marker = self._callers.setdefault(agent, self.marker("caller"))
        self.ctx.gateway.script(marker, *replies)
        published, sessions = _published(self.dep), len(self.dep.sessions())
        seen = len(self.ctx.gateway.requests(agent))
        result = self.dep.run_turn(agent, f"{marker} go on")
        requests = self.ctx.gateway.requests(agent)[seen:]
        found = [
            m for r in requests for m in r.messages if m.role == "tool" and m.toolCallId == call_id
        ]
        return _Turn(
            result,
            requests,
            found[0] if found and call_id else None,
            child,
            self.ctx.gateway.agents_for(child) if child else [],
            _published(self.dep) - published,
            len(self.dep.sessions()) - sessions,
        )


def _load(ctx: CheckContext, dep: Deployment, rule: str, provider: str, **fields: Any) -> None:
    config = SubagentToolConfig(provider=provider, **fields)
    with ctx.step(rule, f"loading the subagent tool {fields or ''} bound to {provider!r}"):
        dep.load_subagent_tool(config)


def _presence(dep: Deployment, agent: str, name: str) -> dict[str, bool]:
    """Where a tool named ``name`` can be seen: every answer must agree."""
    return {
        "global view": any(e.name == name for e in dep.view(None)),
        "agent view": any(e.name == name for e in dep.view(agent)),
        "wire schemas": any(s.name == name for s in dep.tool_schemas(agent)),
        "lookup": dep.lookup(agent, name) is not None,
    }


def _schema(dep: Deployment, agent: str, name: str) -> ToolSchema | None:
    return next((s for s in dep.tool_schemas(agent) if s.name == name), None)


def _wording(schema: ToolSchema) -> tuple[str, str]:
    props = schema.parameters.get("properties") or {}
    prompt = props.get("prompt") if isinstance(props, dict) else None
    prompt_text = prompt.get("description", "") if isinstance(prompt, dict) else ""
    return schema.description, prompt_text if isinstance(prompt_text, str) else ""


def _wording_problems(text_: str, fork: bool) -> list[str]:
    problems = []
    if fork:
        if not _FORK.search(text_):
            problems.append("does not say the child has the conversation / to state what is new")
        if _DENIES_SEEING.search(text_):
            problems.append("says the child does not see the conversation")
    else:
        if not _FRESH.search(text_):
            problems.append("does not say the prompt must stand alone")
        if _CLAIMS_SEEING.search(text_):
            problems.append("says the child is seeded with the conversation")
    return problems


def _other_kind(ctx: CheckContext, provider: ProviderInfo) -> ProviderInfo | None:
    return next(
        (p for p in ctx.providers if p.inheritsParentContext != provider.inheritsParentContext),
        None,
    )


def _provider(ctx: CheckContext) -> ProviderInfo:
    assert ctx.provider is not None, "ST checks run per provider"
    return ctx.provider


def _expect_no_child(ctx: CheckContext, rule: str, turn: _Turn, what: str) -> None:
    observed = {
        "child model requests": len(turn.child_agents),
        "agents published": sorted(turn.new_published),
        "sessions added": turn.new_sessions,
    }
    ctx.expect(
        rule,
        not turn.child_agents and not turn.new_published and turn.new_sessions == 0,
        f"{what}: no child may be created or published",
        {"child model requests": 0, "agents published": [], "sessions added": 0},
        observed,
    )


def _expect_child_ran(ctx: CheckContext, rule: str, turn: _Turn, what: str) -> bool:
    ok = turn.tool_message is not None and not turn.tool_message.isError and bool(
        turn.child_agents
    )
    ctx.expect(
        rule,
        ok,
        f"{what}: the call must start the child and return its output",
        {"isError": False, "child ran": True},
        {
            "tool message": None if turn.tool_message is None else turn.tool_message.model_dump(),
            "child ran": bool(turn.child_agents),
        },
    )
    return ok


def _expect_refused(ctx: CheckContext, rule: str, turn: _Turn, what: str) -> None:
    message = turn.tool_message
    ctx.expect(
        rule,
        message is not None and message.isError,
        f"{what}: the caller's next request must carry an errored tool result",
        {"isError": True},
        None if message is None else message.model_dump(),
    )
    _expect_no_child(ctx, rule, turn, what)


# --- ST-01 ---------------------------------------------------------------------------------


@check("ST-01", name="subagent-tool-schema")
def schema(ctx: CheckContext) -> None:
    """The tool's schema, as listed and as sent on the wire, has exactly description and
    prompt; also under a custom toolName."""
    provider = _provider(ctx).name
    dep = ctx.deploy()
    root = dep.root().agent
    names = (SUBAGENT_TOOL_NAME, _SECONDARY)
    for name in names:
        _load(ctx, dep, "ST-01", provider, toolName=name)
    turn = _Driver(ctx, dep).turn(root, text("nothing to delegate"))
    wire = {t.name: t for t in turn.requests[0].tools} if turn.requests else {}
    for name in names:
        for where, found in (("tool_schemas", _schema(dep, root, name)), ("wire", wire.get(name))):
            if not ctx.expect("ST-01", found is not None, f"{name!r} missing from {where}",
                              name, None):
                continue
            assert found is not None
            props = found.parameters.get("properties")
            keys = sorted(props) if isinstance(props, dict) else props
            ctx.expect(
                "ST-01",
                keys == sorted(SUBAGENT_TOOL_PARAMETERS),
                f"the {where} schema of {name!r} must have exactly the parameters "
                "description and prompt",
                sorted(SUBAGENT_TOOL_PARAMETERS),
                keys,
            )
            required = found.parameters.get("required", [])
            ctx.expect(
                "ST-01",
                isinstance(required, list)
                and "prompt" in required
                and set(required) <= set(SUBAGENT_TOOL_PARAMETERS),
                f"the {where} schema of {name!r} must require prompt and nothing else but "
                "description",
                ["description", "prompt"],
                required,
            )


# --- ST-02 ---------------------------------------------------------------------------------


@check("ST-02", name="subagent-tool-mirrors-provider")
def mirrors_provider(ctx: CheckContext) -> None:
    """The tool follows its provider: provider first or tool first, removed, added again."""
    info = _provider(ctx)
    name = SUBAGENT_TOOL_NAME

    def expect_presence(dep: Deployment, root: str, present: bool, when: str) -> None:
        seen = _presence(dep, root, name)
        ctx.expect(
            "ST-02",
            all(v == present for v in seen.values()),
            f"{when}: the tool must {'exist' if present else 'not exist'} everywhere",
            {k: present for k in seen},
            seen,
        )

    # Provider registered first, then the tool.
    dep = ctx.deploy()
    root = dep.root().agent
    _load(ctx, dep, "ST-02", info.name)
    expect_presence(dep, root, True, "loaded while its provider is registered")
    first = _schema(dep, root, name)
    with ctx.step("ST-02", f"removing provider {info.name!r}"):
        dep.remove_provider(info.name)
    expect_presence(dep, root, False, "after its provider was removed")
    with ctx.step("ST-02", f"adding provider {info.name!r} again"):
        dep.add_provider(info.name)
    expect_presence(dep, root, True, "after its provider was added again")
    again = _schema(dep, root, name)
    if first is not None and again is not None:
        ctx.expect("ST-02", _wording(again) == _wording(first), "the returned tool's wording "
                   "must be derived from the same provider again", _wording(first),
                   _wording(again))
    # Tool loaded first, provider registered afterwards (no load-order requirement).
    dep = ctx.deploy()
    root = dep.root().agent
    with ctx.step("ST-02", f"removing provider {info.name!r}"):
        dep.remove_provider(info.name)
    _load(ctx, dep, "ST-02", info.name)
    expect_presence(dep, root, False, "loaded while its provider is absent")
    with ctx.step("ST-02", f"adding provider {info.name!r}"):
        dep.add_provider(info.name)
    expect_presence(dep, root, True, "after its provider appeared")
    turn = _Driver(ctx, dep).delegate(root)
    _expect_child_ran(ctx, "ST-02", turn, "the tool that appeared with its provider")


# --- ST-03 ---------------------------------------------------------------------------------


@check("ST-03", name="subagent-tool-wording")
def wording(ctx: CheckContext) -> None:
    """Description and prompt text follow inheritsParentContext; a provider of the other kind
    gets different wording."""
    info = _provider(ctx)
    other = _other_kind(ctx, info)
    dep = ctx.deploy()
    root = dep.root().agent
    _load(ctx, dep, "ST-03", info.name)
    if other is not None:
        _load(ctx, dep, "ST-03", other.name, toolName=_SECONDARY)
    mine = _schema(dep, root, SUBAGENT_TOOL_NAME)
    if not ctx.expect("ST-03", mine is not None, "the loaded tool must be offered",
                      SUBAGENT_TOOL_NAME, None):
        return
    assert mine is not None
    kind = "fork" if info.inheritsParentContext else "fresh-child"
    for part, words in zip(("description", "prompt parameter"), _wording(mine), strict=True):
        problems = _wording_problems(words, info.inheritsParentContext)
        ctx.expect(
            "ST-03",
            not problems,
            f"the {part} must carry {kind} wording for provider {info.name!r}",
            f"{kind} wording",
            {"text": words, "problems": problems},
        )
    theirs = _schema(dep, root, _SECONDARY) if other is not None else None
    if other is not None:
        ctx.expect(
            "ST-03",
            theirs is not None
            and all(a != b for a, b in zip(_wording(mine), _wording(theirs), strict=True)),
            f"providers {info.name!r} and {other.name!r} differ in inheritsParentContext, so "
            "both the description and the prompt text must differ",
            "different wording",
            {"mine": _wording(mine), "theirs": None if theirs is None else _wording(theirs)},
        )


# --- ST-04 ---------------------------------------------------------------------------------


@check("ST-04", name="subagent-tool-distinct-names")
def distinct_names(ctx: CheckContext) -> None:
    """A duplicate toolName fails at load (provider present or not); distinct names coexist."""
    info = _provider(ctx)
    dep = ctx.deploy()
    root = dep.root().agent
    name = SUBAGENT_TOOL_NAME
    _load(ctx, dep, "ST-04", info.name)
    for provider in sorted({info.name, *(p.name for p in ctx.providers)}):
        ctx.expect_error(
            "ST-04",
            ErrorCode.DUPLICATE_TOOL_NAME,
            lambda p=provider: dep.load_subagent_tool(SubagentToolConfig(provider=p)),
            f"a second load named {name!r} (bound to {provider!r})",
        )
    count = sum(e.name == name for e in dep.view(root))
    ctx.expect("ST-04", count == 1, "the first load must stay, alone", 1, count)
    _load(ctx, dep, "ST-04", info.name, toolName=_SECONDARY)
    with ctx.step("ST-04", f"removing provider {info.name!r}"):
        dep.remove_provider(info.name)
    ctx.expect_error(
        "ST-04",
        ErrorCode.DUPLICATE_TOOL_NAME,
        lambda: dep.load_subagent_tool(SubagentToolConfig(provider=info.name)),
        f"a second load named {name!r} while the provider is absent",
    )
    with ctx.step("ST-04", f"adding provider {info.name!r} again"):
        dep.add_provider(info.name)
    driver = _Driver(ctx, dep)
    for tool in (name, _SECONDARY):
        _expect_child_ran(ctx, "ST-04", driver.delegate(root, tool), f"calling {tool!r}")
    with ctx.step("ST-04", f"unloading {name!r} and loading it again"):
        dep.unload_subagent_tool(name)
        dep.load_subagent_tool(SubagentToolConfig(provider=info.name))
    seen = _presence(dep, root, name)
    ctx.expect("ST-04", all(seen.values()), "unloading frees the name for a new load",
               "present", seen)


# --- ST-05 ---------------------------------------------------------------------------------

#: maxDepth values outside the depth domain (null is left out: a transport may send an unset
#: field as null).
_BAD_CAPS: tuple[Any, ...] = (
    -1, 1.5, -0.0, 2**53, float("nan"), float("inf"), True, "1", "unbounded", [1], {"v": 1},
)


@check("ST-05", name="subagent-tool-mount-gates")
def mount_gates(ctx: CheckContext) -> None:
    """maxDepth outside the domain fails at load; a numeric cap needs depthLimit at mount;
    provider-managed sends no cap."""
    info = _provider(ctx)
    has_limit = Capability.DEPTH_LIMIT in info.capabilities
    bad_codes = {ErrorCode.INVALID_DEPTH, ErrorCode.INVALID_CONFIG}
    dep = ctx.deploy()
    root = dep.root().agent
    with ctx.step("ST-05", f"removing provider {info.name!r}"):
        dep.remove_provider(info.name)
    for value in _BAD_CAPS:
        assert not check_depth(value).ok
        # Over a JSON wire NaN and Infinity make the request itself malformed.
        malformed = isinstance(value, float) and not math.isfinite(value)
        codes = bad_codes | ({ErrorCode.INVALID_REQUEST} if malformed else set())
        ctx.expect_error(
            "ST-05",
            codes,
            lambda v=value: dep.load_subagent_tool(
                SubagentToolConfig(provider=info.name, maxDepth=v)
            ),
            f"loading with maxDepth {value!r} (provider absent: the load itself must refuse)",
        )
    with ctx.step("ST-05", f"adding provider {info.name!r} again"):
        dep.add_provider(info.name)
    seen = _presence(dep, root, SUBAGENT_TOOL_NAME)
    ctx.expect("ST-05", not any(seen.values()), "a refused load must register nothing",
               "absent", seen)
    # A numeric cap: mounted only on a provider with depthLimit.
    if has_limit:
        _load(ctx, dep, "ST-05", info.name, maxDepth=2)
        turn = _Driver(ctx, dep).delegate(root)
        _expect_child_ran(ctx, "ST-05", turn, "maxDepth 2 on a provider with depthLimit")
    else:
        ctx.expect_error(
            "ST-05",
            ErrorCode.UNSUPPORTED_CAPABILITY,
            lambda: dep.load_subagent_tool(SubagentToolConfig(provider=info.name, maxDepth=2)),
            f"maxDepth 2 mounted on {info.name!r}, which lacks depthLimit",
        )
        ctx.expect("ST-05", not any(_presence(dep, root, SUBAGENT_TOOL_NAME).values()),
                   "the refused mount must register nothing", "absent",
                   _presence(dep, root, SUBAGENT_TOOL_NAME))
        dep = ctx.deploy()
        root = dep.root().agent
        with ctx.step("ST-05", f"removing provider {info.name!r}"):
            dep.remove_provider(info.name)
        _load(ctx, dep, "ST-05", info.name, maxDepth=2)
        try:
            dep.add_provider(info.name)
        except Exception as exc:  # refusing the mount loudly is allowed; any other refusal not
            if getattr(exc, "code", None) is not ErrorCode.UNSUPPORTED_CAPABILITY:
                raise
        seen = _presence(dep, root, SUBAGENT_TOOL_NAME)
        ctx.expect("ST-05", not any(seen.values()), "a numeric cap on a provider without "
                   "depthLimit must not mount when the provider appears", "absent", seen)
    # provider-managed: no cap is sent, so neither the host setting (0) nor CA-01 refuses.
    dep = ctx.deploy(hostDepth=0)
    root = dep.root().agent
    _load(ctx, dep, "ST-05", info.name, maxDepth=PROVIDER_MANAGED)
    turn = _Driver(ctx, dep).delegate(root)
    _expect_child_ran(ctx, "ST-05", turn, "maxDepth 'provider-managed' with the host depth 0")


# --- ST-06 ---------------------------------------------------------------------------------


@check("ST-06", name="subagent-tool-live-default-cap")
def live_default_cap(ctx: CheckContext) -> None:
    """Without maxDepth the cap is the host's live setting, initially 1, read at each call."""
    info = _provider(ctx)
    dep = ctx.deploy()  # the host depth setting left at its initial value
    root = dep.root().agent
    _load(ctx, dep, "ST-06", info.name)
    driver = _Driver(ctx, dep)

    def nested(cap: int) -> None:
        grand, arguments = driver.child(text("grandchild done"))
        child_replies = (call(SUBAGENT_TOOL_NAME, arguments, "call-grand"), text("child done"))
        turn = driver.delegate(root, child=child_replies)
        if not _expect_child_ran(ctx, "ST-06", turn, f"depth 1 child with the setting {cap}"):
            return
        child_requests = ctx.gateway.requests(turn.child_agents[0])
        results = [m for r in child_requests for m in r.messages
                   if m.role == "tool" and m.toolCallId == "call-grand"]
        grand_ran = bool(ctx.gateway.agents_for(grand))
        allowed = cap >= 2
        ctx.expect(
            "ST-06",
            bool(results) and results[0].isError != allowed and grand_ran == allowed,
            f"with the host depth setting {cap}, a call from the depth-1 child must "
            f"{'start' if allowed else 'be refused (errored result, no grandchild)'}",
            {"isError": not allowed, "grandchild ran": allowed},
            {"tool message": results[0].model_dump() if results else None,
             "grandchild ran": grand_ran},
        )

    nested(INITIAL_HOST_DEPTH)
    with ctx.step("ST-06", "setting the host depth to 2"):
        dep.set_host_depth(2)
    nested(2)
    with ctx.step("ST-06", "setting the host depth to 1"):
        dep.set_host_depth(1)
    turn = driver.delegate(root, before_call=lambda: dep.set_host_depth(0))
    _expect_refused(ctx, "ST-06", turn, "a call after the setting dropped to 0 mid-turn")


# --- ST-07 ---------------------------------------------------------------------------------


@check("ST-07", name="subagent-tool-at-cap-result")
def at_cap_result(ctx: CheckContext) -> None:
    """At the cap the tool stays visible and a call gives an errored result, no child."""
    info = _provider(ctx)
    configs: list[dict[str, Any]] = [{"hostDepth": 0, "tool": {}}]
    if Capability.DEPTH_LIMIT in info.capabilities:
        configs.append({"hostDepth": 5, "tool": {"maxDepth": 0}})
    for config in configs:
        where = f"host depth {config['hostDepth']}, tool config {config['tool']}"
        dep = ctx.deploy(hostDepth=config["hostDepth"])
        root = dep.root().agent
        _load(ctx, dep, "ST-07", info.name, **config["tool"])
        seen = _presence(dep, root, SUBAGENT_TOOL_NAME)
        ctx.expect("ST-07", all(seen.values()), f"{where}: the tool must stay visible at the "
                   "cap", "visible", seen)
        turn = _Driver(ctx, dep).delegate(root)
        offered = [r for r in turn.requests if any(t.name == SUBAGENT_TOOL_NAME for t in r.tools)]
        ctx.expect("ST-07", len(offered) == len(turn.requests) >= 2, f"{where}: every request "
                   "of the turn must offer the tool", len(turn.requests), len(offered))
        _expect_refused(ctx, "ST-07", turn, f"{where}: a call at the cap")
        ctx.expect("ST-07", turn.has_code(ErrorCode.DEPTH_EXCEEDED),
                   f"{where}: the errored result must carry DEPTH_EXCEEDED",
                   ErrorCode.DEPTH_EXCEEDED.value,
                   {"toolResults": [r.model_dump() for r in turn.result.toolResults],
                    "content": turn.content})
    # A child started at the cap (host depth 1, child depth 1) is offered the tool too.
    dep = ctx.deploy()
    root = dep.root().agent
    _load(ctx, dep, "ST-07", info.name)
    driver = _Driver(ctx, dep)
    grand, arguments = driver.child(text("grandchild done"))
    turn = driver.delegate(
        root, child=(call(SUBAGENT_TOOL_NAME, arguments, "call-grand"), text("child done"))
    )
    if not _expect_child_ran(ctx, "ST-07", turn, "a depth-1 child with the host depth 1"):
        return
    requests = ctx.gateway.requests(turn.child_agents[0])
    offered = [any(t.name == SUBAGENT_TOOL_NAME for t in r.tools) for r in requests]
    results = [m for r in requests for m in r.messages
               if m.role == "tool" and m.toolCallId == "call-grand"]
    ctx.expect(
        "ST-07",
        len(offered) >= 2 and all(offered) and bool(results) and results[0].isError
        and not ctx.gateway.agents_for(grand),
        "a child at the cap must be offered the tool in every request, and its call must give "
        "an errored result without starting a grandchild",
        {"offered": [True, True], "isError": True, "grandchild ran": False},
        {"offered": offered, "tool message": results[0].model_dump() if results else None,
         "grandchild ran": bool(ctx.gateway.agents_for(grand))},
    )


# --- ST-08 ---------------------------------------------------------------------------------


def _mentions(notice: str, number: int) -> bool:
    return re.search(rf"(?<![\d.]){number}(?![\d.]\d|\d)", notice) is not None


@check("ST-08", name="subagent-tool-at-cap-notice")
def at_cap_notice(ctx: CheckContext) -> None:
    """At the cap a notice comes once per (cap, depth), from live values; none when runtime
    context is off, where the guard still refuses."""
    info = _provider(ctx)
    dep = ctx.deploy()
    _load(ctx, dep, "ST-08", info.name)
    driver = _Driver(ctx, dep)
    root = dep.root().agent
    with ctx.step("ST-08", "creating an agent with durable depth 3"):
        deep = dep.create_agent(header_depth=3).agent
        dep.set_host_depth(2)

    def expect_notice(turn: _Turn, cap: int, when: str) -> None:
        first = turn.requests[0].context if turn.requests else []
        ctx.expect(
            "ST-08",
            len(first) == 1
            and _mentions(first[0], cap)
            and _mentions(first[0], 3)
            and _WORK_DIRECTLY.search(first[0]) is not None,
            f"{when}: the first request must carry one notice to work directly that names the "
            f"cap {cap} and the depth 3",
            f"one notice naming {cap} and 3",
            first,
        )
        later = [r.context for r in turn.requests[1:]]
        ctx.expect("ST-08", not any(later), f"{when}: the notice must not be appended again "
                   "while the cap and depth are unchanged", [], later)

    turn = driver.delegate(deep)
    expect_notice(turn, 2, "at the cap 2 with depth 3")
    _expect_refused(ctx, "ST-08", turn, "at the cap with runtime context on")
    again = driver.turn(deep, text("still here"))
    ctx.expect("ST-08", not any(r.context for r in again.requests), "a later turn with the "
               "same cap and depth must carry no new notice", [],
               [r.context for r in again.requests])
    with ctx.step("ST-08", "setting the host depth to 1"):
        dep.set_host_depth(1)
    expect_notice(driver.turn(deep, text("again")), 1, "after the cap changed to 1")
    below = driver.turn(root, text("root works"))
    ctx.expect("ST-08", not any(r.context for r in below.requests), "an agent below the cap "
               "must get no notice", [], [r.context for r in below.requests])
    with ctx.step("ST-08", "disabling runtime context and setting the host depth to 2"):
        dep.set_runtime_context(False)
        dep.set_host_depth(2)
    quiet = driver.delegate(deep)
    ctx.expect("ST-08", not any(r.context for r in quiet.requests), "with runtime context "
               "disabled no notice may be sent", [], [r.context for r in quiet.requests])
    _expect_refused(ctx, "ST-08", quiet, "at the cap with runtime context off")


# --- ST-09 ---------------------------------------------------------------------------------


@check("ST-09", name="subagent-tool-run-lifecycle")
def run_lifecycle(ctx: CheckContext) -> None:
    """Runs are disposed after completed, failed and aborted children; the tool's abort
    cancels the run; a non-completed stop is an errored result naming the reason."""
    info = _provider(ctx)
    dep = ctx.deploy(tools=["probe"])
    root = dep.root().agent
    _load(ctx, dep, "ST-09", info.name)
    driver = _Driver(ctx, dep)
    live: list[bool] = []

    def watched(reply: ModelReply) -> Callable[[ModelRequest], ModelReply]:
        def step(request: ModelRequest) -> ModelReply:
            live.append(request.agent in dep.agents())
            return reply

        return step

    def delegate(*child: Any) -> _Turn:
        live.clear()
        return driver.delegate(root, child=child)

    def expect_disposed(turn: _Turn, what: str) -> None:
        child = turn.child_agents[0] if turn.child_agents else None
        after = child is not None and child in dep.agents()
        ctx.expect(
            "ST-09",
            child is not None and live[-1:] == [True] and not after,
            f"{what}: the child must be published while it runs and gone once the call returns",
            {"child ran": True, "published while running": True, "published after": False},
            {"child ran": child is not None, "published while running": live[-1:] == [True],
             "published after": after},
        )

    turn = delegate(watched(text("child output 7")))
    _expect_child_ran(ctx, "ST-09", turn, "a completed child")
    ctx.expect("ST-09", "child output 7" in turn.content, "a completed child's output is the "
               "tool result", "child output 7", turn.content)
    expect_disposed(turn, "completed")
    for reason in (r for r in StopReason if r is not StopReason.COMPLETED):
        reply = ModelReply(text=f"partial {reason.value}", stopReason=reason)
        turn = delegate(watched(reply))
        message = turn.tool_message
        ctx.expect(
            "ST-09",
            message is not None and message.isError and reason.value in turn.content,
            f"a child stopping with {reason.value} must give an errored result naming it",
            {"isError": True, "names": reason.value},
            None if message is None else message.model_dump(),
        )
        expect_disposed(turn, reason.value)
    # The tool's abort signal: abort the caller's turn while the child waits for its model.
    probe = call("probe", {}, "call-probe")

    def abort_then_continue(request: ModelRequest) -> ModelReply:
        live.append(request.agent in dep.agents())
        dep.abort_turn(root)
        return probe

    turn = delegate(abort_then_continue, text("after abort"))
    child = turn.child_agents[0] if turn.child_agents else None
    went_on = [] if child is None else ctx.gateway.requests(child)[1:]
    probed = [i for i in dep.invocations() if i.tool == "probe"]
    ctx.expect(
        "ST-09",
        child is not None and not went_on and not probed,
        "aborting the tool must cancel the child's run: no further tool call or request",
        {"child requests after abort": 0, "probe calls": 0},
        {"child ran": child is not None, "child requests after abort": len(went_on),
         "probe calls": len(probed)},
    )
    expect_disposed(turn, "aborted by the tool's signal")
    results = [r.isError for r in turn.result.toolResults]
    if turn.tool_message is not None:
        results.append(turn.tool_message.isError)
    ctx.expect(
        "ST-09",
        bool(results) and all(results),
        "an aborted call must give an errored tool result, never output as success",
        {"isError": True},
        {"toolResults": [r.model_dump() for r in turn.result.toolResults],
         "tool message": None if turn.tool_message is None else turn.tool_message.model_dump()},
    )
