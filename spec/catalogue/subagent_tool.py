"""ST: the model-facing ``subagent`` tool (component ``subagent-tool``), rules ST-01..ST-09.

These rules describe a tool's behaviour over its life (loading, provider churn, calls at the
cap), so their examples are narrative.
"""

from __future__ import annotations

from ..rule import Rule, Source, family_rules
from ..vocabulary import Component, Family
from ._examples import breaks, narrative, obeys

_README = "002_9cf54e4b1767c2c9.txt"
_CONFIG = Source(document=_README, section="Provider selection is config, not model-facing")
_WORDING = Source(
    document=_README,
    section="The description states the provider's conversation-history descriptor",
)
_LIFECYCLE = Source(document=_README, section="Lifecycle (synchronous collect)")
_TREE_CAP = Source(document="000_f18e7de65ba39cf4.txt", section="Depth is an absolute tree cap")


_st = family_rules(Family.ST, _CONFIG, component=Component.SUBAGENT_TOOL)


RULES: tuple[Rule, ...] = (
    _st(
        1,
        "schema",
        "The model sees exactly two parameters, description and prompt, and nothing that "
        "selects a provider.",
        "Which backend runs the child is deployment configuration; a model-facing selector "
        "would let the model pick transports the deployment never meant it to choose.",
        narrative({},
                  obeys("the two parameters", {"parameters": ["description", "prompt"]}),
                  breaks("a provider parameter in the schema",
                         {"parameters": ["description", "prompt", "provider"]})),
    ),
    _st(
        2,
        "mirrors-provider",
        "The tool exists only while the provider it is bound to is registered: it appears "
        "when the provider does, in whatever load order, disappears when the provider is "
        "removed, and returns with freshly derived wording when the provider is added again.",
        "Its description is fixed at registration and derived from the provider, so it must "
        "follow the provider's lifecycle; plugins may start in any order.",
        (
            *narrative({"order": ["tool plugin", "provider"]},
                       obeys("tool loaded before its provider",
                             {"tool visible after provider added": True})),
            *narrative({"provider": "removed"},
                       breaks("provider removed, tool kept", {"tool visible": True})),
        ),
        source=_WORDING,
    ),
    _st(
        3,
        "wording",
        "The tool's description and the text of its prompt parameter are derived from the "
        "provider's inheritsParentContext: wording for a standalone prompt when the child "
        "starts fresh, and wording asking to state only what is new when it is a fork.",
        "A fresh child sees nothing of the conversation, a fork sees all of it; the model "
        "writes a good prompt only if it knows which one it is talking to.",
        (
            *narrative({"inheritsParentContext": True},
                       obeys("fork wording", {"prompt parameter says": "state only what is new"})),
            *narrative({"inheritsParentContext": False},
                       breaks("fork wording on a fresh child",
                              {"prompt parameter says": "state only what is new"})),
        ),
        source=_WORDING,
    ),
    _st(
        4,
        "distinct-names",
        "Loading the tool twice with the same toolName fails loudly, while loads with "
        "distinct names live side by side.",
        "Exposing several providers means loading the tool once per provider; a duplicate "
        "name would silently replace one of them.",
        (
            *narrative({"loads": ["subagent", "subagent_acp"]},
                       obeys("subagent and subagent_acp",
                             {"tools": ["subagent", "subagent_acp"]})),
            *narrative({"loads": ["subagent", "subagent"]},
                       breaks("a second subagent load replaces the first",
                              {"tools": ["subagent"], "error": None})),
        ),
    ),
    _st(
        5,
        "mount-gates",
        "A maxDepth other than provider-managed that lies outside the depth domain (a "
        "negative or fractional number, one past the safe integers, or a value that is no "
        "number at all) fails when the tool loads; a numeric maxDepth fails at provider mount "
        "when the provider lacks depthLimit; the value provider-managed sends no cap at all.",
        "Configuration errors surface at load or mount, not on the model's first call; an "
        "out-of-process provider may own its recursion budget, which provider-managed states. "
        "The tool's configuration is one of the public entry points where DE-05 refuses every "
        "value outside the domain, numeric or not.",
        (
            *narrative({"config": {"maxDepth": -1}},
                       obeys("maxDepth -1 at load", {"load": "INVALID_DEPTH"})),
            *narrative({"config": {"maxDepth": 2}, "provider capabilities": []},
                       breaks("a numeric cap on a provider without depthLimit mounted anyway",
                              {"mount": "ok"})),
            *narrative({"config": {"maxDepth": "provider-managed"}, "provider capabilities": []},
                       obeys("provider-managed", {"start request has maxDepth": False})),
        ),
        source=_TREE_CAP,
    ),
    _st(
        6,
        "live-default-cap",
        "Without its own maxDepth the tool uses the host's live depth setting, initially 1, "
        "and a change to that setting applies from the next call on.",
        "The base profile takes its cap from the host so that operators can tighten or loosen "
        "delegation without reloading plugins.",
        narrative({"host depth": [1, 2], "caller depth": 1},
                  obeys("host setting raised to 2 between calls",
                        {"second call": "child started"}),
                  breaks("the load-time value kept", {"second call": "DEPTH_EXCEEDED"})),
        source=_TREE_CAP,
    ),
    _st(
        7,
        "at-cap-result",
        "At the cap the tool stays visible; calling it returns an errored tool result, and no "
        "child is published.",
        "Whether a start is allowed depends on runtime state, so the cap is enforced on every "
        "start rather than by hiding the tool with a creation-time filter.",
        narrative({"maxDepth": 1, "caller depth": 1},
                  obeys("a call at the cap",
                        {"tool visible": True, "result": "isError", "children": 0}),
                  breaks("the tool hidden at the cap", {"tool visible": False})),
        source=_TREE_CAP,
    ),
    _st(
        8,
        "at-cap-notice",
        "At the cap, with runtime context enabled, the calling agent's request carries a "
        "notice to do the work directly, built from the live cap and durable depth at request "
        "time and not appended again while unchanged. With runtime context disabled there is "
        "no notice, and the guard still holds.",
        "The notice saves the model a call that can only fail, without changing its system "
        "prompt or tool schemas; the guard, not the notice, is what enforces the cap.",
        (
            *narrative({"includeRuntimeContext": True, "at cap": True},
                       obeys("two requests at the cap", {"notices": 1})),
            *narrative({"includeRuntimeContext": False, "at cap": True},
                       breaks("runtime context off also drops the guard",
                              {"call result": "child started"})),
        ),
        source=_TREE_CAP,
    ),
    _st(
        9,
        "run-lifecycle",
        "Every run the tool starts is disposed on every path, whether it completed, failed or "
        "was aborted; aborting the tool cancels the run; a completed run's output is the tool "
        "result; and a stop reason other than completed yields an error tool result rather "
        "than partial output as success. How the result's text describes the reason is the "
        "runtime's own.",
        "A leaked child keeps resources and sessions alive; partial output presented as "
        "success would mislead the parent model. The model reads the error flag; a runtime "
        "words the reason in its own language (a code, a word, a sentence), so no wording is "
        "fixed.",
        (
            *narrative({"stop reason": "max-tokens"},
                       obeys("the child stops with max-tokens",
                             {"isError": True, "disposed": True})),
            *narrative({"stop reason": "refusal"},
                       breaks("partial output returned as success", {"isError": False})),
        ),
        source=_LIFECYCLE,
    ),
)
