"""ST: the ``subagent`` tool's shape and lifecycle (component ``subagent-tool``), ST-01..ST-05.

Schema (ST-01), mirroring the bound provider (ST-02), wording (ST-03), distinct tool names
(ST-04) and the gates at load and mount (ST-05). Calls at and below the cap, notices and runs
are in :mod:`.subagent_tool_calls`; the shared driver is :mod:`._subagent_driver`.
"""

from __future__ import annotations

import math
from typing import Any

from subagent_tck.spec import (
    PROVIDER_MANAGED,
    SUBAGENT_TOOL_NAME,
    SUBAGENT_TOOL_PARAMETERS,
    Capability,
    ErrorCode,
    TckError,
    check_depth,
)

from ...core.gateway import text
from ...core.protocol import SubagentToolConfig
from ...core.target import Deployment
from ..check import CheckContext, check
from ..partitions import Partition
from ._nonce import nonce
from ._subagent_driver import (
    SECONDARY,
    Driver,
    bound_provider,
    expect_child_ran,
    load,
    loader,
    other_kind,
    presence,
    schema_of,
    wording_of,
    wording_problems,
)

# --- ST-01 ---------------------------------------------------------------------------------


ST01 = (Partition("ST-01", "default-name", "the tool loaded under its default name"),
        Partition("ST-01", "custom-name", "the tool loaded under a custom toolName"))


@check("ST-01", name="subagent-tool-schema", partitions=ST01)
def schema(ctx: CheckContext) -> None:
    """The tool's schema, as listed and as sent on the wire, has exactly description and
    prompt; also under a custom toolName."""
    provider = bound_provider(ctx).name
    dep = ctx.deploy()
    root = dep.root().agent
    names = (SUBAGENT_TOOL_NAME, SECONDARY)
    for name in names:
        load(ctx, dep, "ST-01", provider, toolName=name)
    turn = Driver(ctx, dep).turn(root, text(f"nothing to delegate {nonce(ctx, 'schema')}"))
    wire = {t.name: t for t in turn.requests[0].tools} if turn.requests else {}
    for name in names:
        listed = (("tool_schemas", schema_of(dep, root, name)), ("wire", wire.get(name)))
        for where, found in listed:
            if not ctx.expect("ST-01", found is not None, f"{name!r} missing from {where}",
                              name, None):
                continue
            assert found is not None
            props = found.parameters.get("properties")
            keys = sorted(props) if isinstance(props, dict) else props
            ctx.expect(
                "ST-01",
                keys == sorted(SUBAGENT_TOOL_PARAMETERS),
                f"the {where} schema of {name!r}: the model must see exactly two "
                "parameters, description and prompt, and nothing that selects a provider",
                sorted(SUBAGENT_TOOL_PARAMETERS),
                keys,
            )
            # Which of the two is required is the tool's choice (the rule fixes what the
            # model sees, docs/rules.md#st-01): only a required name outside them is judged.
            required = found.parameters.get("required", [])
            ctx.expect(
                "ST-01",
                isinstance(required, list) and set(required) <= set(SUBAGENT_TOOL_PARAMETERS),
                f"the {where} schema of {name!r} requires {required!r}: the model must see "
                "exactly two parameters, description and prompt",
                "a subset of ['description', 'prompt']",
                required,
            )
        ctx.drew("ST-01", "default-name" if name == SUBAGENT_TOOL_NAME else "custom-name")


# --- ST-02 ---------------------------------------------------------------------------------


ST02 = (Partition("ST-02", "provider-first", "provider registered, tool loaded, provider "
                  "removed and added again"),
        Partition("ST-02", "tool-first", "tool loaded while its provider is absent, then the "
                  "provider appears"))


@check("ST-02", name="subagent-tool-mirrors-provider", partitions=ST02)
def mirrors_provider(ctx: CheckContext) -> None:
    """The tool follows its provider: provider first or tool first, removed, added again."""
    info = bound_provider(ctx)
    name = SUBAGENT_TOOL_NAME

    def expect_presence(dep: Deployment, root: str, present: bool, when: str) -> None:
        seen = presence(dep, root, name)
        ctx.expect(
            "ST-02",
            all(v == present for v in seen.values()),
            f"{when}: the tool exists only while the provider it is bound to is registered, so it "
            f"must {'exist' if present else 'not exist'} everywhere",
            {k: present for k in seen},
            seen,
        )

    # Provider registered first, then the tool.
    dep = ctx.deploy()
    root = dep.root().agent
    load(ctx, dep, "ST-02", info.name)
    expect_presence(dep, root, True, "loaded while its provider is registered")
    first = schema_of(dep, root, name)
    with ctx.step("ST-02", f"removing provider {info.name!r}"):
        dep.remove_provider(info.name)
    expect_presence(dep, root, False, "after its provider was removed")
    with ctx.step("ST-02", f"adding provider {info.name!r} again"):
        dep.add_provider(info.name)
    expect_presence(dep, root, True, "after its provider was added again")
    again = schema_of(dep, root, name)
    if first is not None and again is not None:
        ctx.expect("ST-02", wording_of(again) == wording_of(first), "the tool returns with freshly "
                   "derived wording when the provider is added again (the same provider: the "
                   "same wording)", wording_of(first),
                   wording_of(again))
    ctx.drew("ST-02", "provider-first")
    # Tool loaded first, provider registered afterwards (no load-order requirement).
    dep = ctx.deploy()
    root = dep.root().agent
    with ctx.step("ST-02", f"removing provider {info.name!r}"):
        dep.remove_provider(info.name)
    load(ctx, dep, "ST-02", info.name)
    expect_presence(dep, root, False, "loaded while its provider is absent")
    with ctx.step("ST-02", f"adding provider {info.name!r}"):
        dep.add_provider(info.name)
    expect_presence(dep, root, True, "after its provider appeared")
    turn = Driver(ctx, dep).delegate(root)
    expect_child_ran(ctx, "ST-02", turn, "the tool that appeared with its provider")
    ctx.drew("ST-02", "tool-first")


# --- ST-03 ---------------------------------------------------------------------------------


ST03 = (Partition("ST-03", "own-kind", "the wording of the provider's own kind"),
        Partition("ST-03", "other-kind-differs", "a provider of the other kind gets other "
                  "wording"))


@check("ST-03", name="subagent-tool-wording", partitions=ST03)
def wording(ctx: CheckContext) -> None:
    """Description and prompt text follow inheritsParentContext; a provider of the other kind
    gets different wording."""
    info = bound_provider(ctx)
    other = other_kind(ctx, info)
    dep = ctx.deploy()
    root = dep.root().agent
    load(ctx, dep, "ST-03", info.name)
    if other is not None:
        load(ctx, dep, "ST-03", other.name, toolName=SECONDARY)
    mine = schema_of(dep, root, SUBAGENT_TOOL_NAME)
    if not ctx.expect("ST-03", mine is not None, "the loaded tool must be offered",
                      SUBAGENT_TOOL_NAME, None):
        return
    assert mine is not None
    kind = "fork" if info.inheritsParentContext else "fresh-child"
    for part, words in zip(("description", "prompt parameter"), wording_of(mine), strict=True):
        problems = wording_problems(words, info.inheritsParentContext)
        ctx.expect(
            "ST-03",
            not problems,
            f"the {part} must be derived from inheritsParentContext: {kind} wording for "
            f"provider {info.name!r}",
            f"{kind} wording",
            {"text": words, "problems": problems},
        )
    ctx.drew("ST-03", "own-kind")
    if other is None:
        ctx.inapplicable("ST-03", "other-kind-differs")
    theirs = schema_of(dep, root, SECONDARY) if other is not None else None
    if other is not None:
        ctx.expect(
            "ST-03",
            theirs is not None
            and all(a != b for a, b in zip(wording_of(mine), wording_of(theirs), strict=True)),
            f"providers {info.name!r} and {other.name!r} differ in inheritsParentContext, so "
            "both the description and the prompt text must differ",
            "different wording",
            {"mine": wording_of(mine), "theirs": None if theirs is None else wording_of(theirs)},
        )
        ctx.drew("ST-03", "other-kind-differs")


# --- ST-04 ---------------------------------------------------------------------------------


ST04 = (Partition("ST-04", "duplicate-with-provider", "a second load under a taken name, "
                  "bound to each provider"),
        Partition("ST-04", "duplicate-without-provider", "the same while the provider is "
                  "absent"),
        Partition("ST-04", "distinct-names-coexist", "two names, each calling its child"))


@check("ST-04", name="subagent-tool-distinct-names", partitions=ST04)
def distinct_names(ctx: CheckContext) -> None:
    """A duplicate toolName fails at load (provider present or not); distinct names coexist."""
    info = bound_provider(ctx)
    dep = ctx.deploy()
    root = dep.root().agent
    name = SUBAGENT_TOOL_NAME
    load(ctx, dep, "ST-04", info.name)
    for provider in sorted({info.name, *(p.name for p in ctx.providers)}):
        ctx.expect_error(
            "ST-04",
            ErrorCode.DUPLICATE_TOOL_NAME,
            loader(dep, SubagentToolConfig(provider=provider)),
            f"a second load named {name!r} (bound to {provider!r})",
        )
    count = sum(e.name == name for e in dep.view(root))
    ctx.expect("ST-04", count == 1, "loading the tool twice with the same toolName must fail "
               "loudly: the first load must stay, alone", 1, count)
    ctx.drew("ST-04", "duplicate-with-provider")
    load(ctx, dep, "ST-04", info.name, toolName=SECONDARY)
    with ctx.step("ST-04", f"removing provider {info.name!r}"):
        dep.remove_provider(info.name)
    ctx.expect_error(
        "ST-04",
        ErrorCode.DUPLICATE_TOOL_NAME,
        loader(dep, SubagentToolConfig(provider=info.name)),
        f"a second load named {name!r} while the provider is absent",
    )
    ctx.drew("ST-04", "duplicate-without-provider")
    with ctx.step("ST-04", f"adding provider {info.name!r} again"):
        dep.add_provider(info.name)
    driver = Driver(ctx, dep)
    for tool in (name, SECONDARY):
        expect_child_ran(ctx, "ST-04", driver.delegate(root, tool), f"calling {tool!r}")
    ctx.drew("ST-04", "distinct-names-coexist")
    # Unloading is not ST-04's subject (docs/rules.md#st-04 speaks of loads only), so what a
    # load after an unload does is not judged here.


# --- ST-05 ---------------------------------------------------------------------------------

#: maxDepth values outside the depth domain (null is left out: a transport may send an unset
#: field as null).
_BAD_CAPS: tuple[Any, ...] = (
    -1, 1.5, -0.0, 2**53, float("nan"), float("inf"), True, "1", "unbounded", [1], {"v": 1},
)


ST05 = (Partition("ST-05", "cap-outside-the-domain", "maxDepth values outside the domain: "
                  "the load fails, nothing registered"),
        Partition("ST-05", "numeric-cap-with-depth-limit", "a numeric cap on a provider with "
                  "depthLimit"),
        Partition("ST-05", "numeric-cap-without-depth-limit", "a numeric cap on a provider "
                  "without depthLimit: refused at mount"),
        Partition("ST-05", "provider-managed", "provider-managed: no cap sent, host depth 0"))


@check("ST-05", name="subagent-tool-mount-gates", partitions=ST05)
def mount_gates(ctx: CheckContext) -> None:
    """maxDepth outside the domain fails at load; a numeric cap needs depthLimit at mount;
    provider-managed sends no cap."""
    info = bound_provider(ctx)
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
        accepted = ctx.expect_error(
            "ST-05",
            codes,
            loader(dep, SubagentToolConfig(provider=info.name, maxDepth=value)),
            f"a maxDepth outside the depth domain fails when the tool loads: loading with maxDepth "
            f"{value!r} (provider absent: the load itself must refuse)",
        ) is None
        if accepted:  # already a failure; free the name so the next value is judged alone
            dep.unload_subagent_tool(SUBAGENT_TOOL_NAME)
    with ctx.step("ST-05", f"adding provider {info.name!r} again"):
        dep.add_provider(info.name)
    seen = presence(dep, root, SUBAGENT_TOOL_NAME)
    ctx.expect("ST-05", not any(seen.values()), "a maxDepth outside the depth domain fails "
               "when the tool loads: the refused load must register nothing",
               "absent", seen)
    ctx.drew("ST-05", "cap-outside-the-domain")
    ctx.inapplicable("ST-05", "numeric-cap-without-depth-limit" if has_limit
                     else "numeric-cap-with-depth-limit")
    # A numeric cap: mounted only on a provider with depthLimit.
    if has_limit:
        load(ctx, dep, "ST-05", info.name, maxDepth=2)
        turn = Driver(ctx, dep).delegate(root)
        expect_child_ran(ctx, "ST-05", turn, "maxDepth 2 on a provider with depthLimit")
        ctx.drew("ST-05", "numeric-cap-with-depth-limit")
    else:
        ctx.expect_error(
            "ST-05",
            ErrorCode.UNSUPPORTED_CAPABILITY,
            loader(dep, SubagentToolConfig(provider=info.name, maxDepth=2)),
            f"maxDepth 2 mounted on {info.name!r}, which lacks depthLimit",
        )
        ctx.expect("ST-05", not any(presence(dep, root, SUBAGENT_TOOL_NAME).values()),
                   "a numeric maxDepth fails at provider mount when the provider "
                   "lacks depthLimit: the refused mount must register nothing", "absent",
                   presence(dep, root, SUBAGENT_TOOL_NAME))
        dep = ctx.deploy()
        root = dep.root().agent
        with ctx.step("ST-05", f"removing provider {info.name!r}"):
            dep.remove_provider(info.name)
        load(ctx, dep, "ST-05", info.name, maxDepth=2)
        try:
            dep.add_provider(info.name)
        except TckError as exc:  # refusing the mount loudly is allowed; any other refusal not
            if exc.code is not ErrorCode.UNSUPPORTED_CAPABILITY:
                raise
        seen = presence(dep, root, SUBAGENT_TOOL_NAME)
        ctx.expect("ST-05", not any(seen.values()), "a numeric cap on a provider without "
                   "depthLimit must not mount when the provider appears", "absent", seen)
        ctx.drew("ST-05", "numeric-cap-without-depth-limit")
    # provider-managed: no cap is sent, so neither the host setting (0) nor CA-01 refuses.
    dep = ctx.deploy(hostDepth=0)
    root = dep.root().agent
    load(ctx, dep, "ST-05", info.name, maxDepth=PROVIDER_MANAGED)
    turn = Driver(ctx, dep).delegate(root)
    expect_child_ran(ctx, "ST-05", turn, "maxDepth 'provider-managed' with the host depth 0")
    ctx.drew("ST-05", "provider-managed")
