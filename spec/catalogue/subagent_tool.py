"""ST: the model-facing ``subagent`` tool (component ``subagent-tool``), rules ST-01..ST-09.

These rules describe a tool's behaviour over its life (loading, provider churn, calls at the
cap), so their examples are narrative.
"""

from __future__ import annotations

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import Component, Family

_README = "002_9cf54e4b1767c2c9.txt"
_CONFIG = Source(document=_README, section="Provider selection is config, not model-facing")
_WORDING = Source(
    document=_README,
    section="The description states the provider's conversation-history descriptor",
)
_LIFECYCLE = Source(document=_README, section="Lifecycle (synchronous collect)")
_TREE_CAP = Source(document="000_f18e7de65ba39cf4.txt", section="Depth is an absolute tree cap")


_rule = family_rules(Family.ST, _CONFIG, component=Component.SUBAGENT_TOOL)


def _st(number: int, slug: str, statement: str, rationale: str, source: Source,
        examples: tuple[Example, ...]) -> Rule:
    return _rule(number, slug, statement, rationale, examples, source=source)


RULES: tuple[Rule, ...] = (
    _st(
        1,
        "schema",
        "The model sees exactly two parameters, description and prompt, and nothing that "
        "selects a provider.",
        "Which backend runs the child is deployment configuration; a model-facing selector "
        "would let the model pick transports the deployment never meant it to choose.",
        _CONFIG,
        (
            Example(
                title="the two parameters",
                observed={"parameters": ["description", "prompt"]},
                holds=True,
            ),
            Example(
                title="a provider parameter in the schema",
                observed={"parameters": ["description", "prompt", "provider"]},
                holds=False,
            ),
        ),
    ),
    _st(
        2,
        "mirrors-provider",
        "The tool exists only while the provider it is bound to is registered: it appears "
        "when the provider does, in whatever load order, disappears when the provider is "
        "removed, and returns with freshly derived wording when the provider is added again.",
        "Its description is fixed at registration and derived from the provider, so it must "
        "follow the provider's lifecycle; plugins may start in any order.",
        _WORDING,
        (
            Example(
                title="tool loaded before its provider",
                given={"order": ["tool plugin", "provider"]},
                observed={"tool visible after provider added": True},
                holds=True,
            ),
            Example(
                title="provider removed, tool kept",
                given={"provider": "removed"},
                observed={"tool visible": True},
                holds=False,
            ),
        ),
    ),
    _st(
        3,
        "wording",
        "The tool's description and the text of its prompt parameter are derived from the "
        "provider's inheritsParentContext: wording for a standalone prompt when the child "
        "starts fresh, and wording asking to state only what is new when it is a fork.",
        "A fresh child sees nothing of the conversation, a fork sees all of it; the model "
        "writes a good prompt only if it knows which one it is talking to.",
        _WORDING,
        (
            Example(
                title="fork wording",
                given={"inheritsParentContext": True},
                observed={"prompt parameter says": "state only what is new"},
                holds=True,
            ),
            Example(
                title="fork wording on a fresh child",
                given={"inheritsParentContext": False},
                observed={"prompt parameter says": "state only what is new"},
                holds=False,
            ),
        ),
    ),
    _st(
        4,
        "distinct-names",
        "Loading the tool twice with the same toolName fails loudly, while loads with "
        "distinct names live side by side.",
        "Exposing several providers means loading the tool once per provider; a duplicate "
        "name would silently replace one of them.",
        _CONFIG,
        (
            Example(
                title="subagent and subagent_acp",
                given={"loads": ["subagent", "subagent_acp"]},
                observed={"tools": ["subagent", "subagent_acp"]},
                holds=True,
            ),
            Example(
                title="a second subagent load replaces the first",
                given={"loads": ["subagent", "subagent"]},
                observed={"tools": ["subagent"], "error": None},
                holds=False,
            ),
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
        _TREE_CAP,
        (
            Example(
                title="maxDepth -1 at load",
                given={"config": {"maxDepth": -1}},
                observed={"load": "INVALID_DEPTH"},
                holds=True,
            ),
            Example(
                title="a numeric cap on a provider without depthLimit mounted anyway",
                given={"config": {"maxDepth": 2}, "provider capabilities": []},
                observed={"mount": "ok"},
                holds=False,
            ),
            Example(
                title="provider-managed",
                given={"config": {"maxDepth": "provider-managed"}, "provider capabilities": []},
                observed={"start request has maxDepth": False},
                holds=True,
            ),
        ),
    ),
    _st(
        6,
        "live-default-cap",
        "Without its own maxDepth the tool uses the host's live depth setting, initially 1, "
        "and a change to that setting applies from the next call on.",
        "The base profile takes its cap from the host so that operators can tighten or loosen "
        "delegation without reloading plugins.",
        _TREE_CAP,
        (
            Example(
                title="host setting raised to 2 between calls",
                given={"host depth": [1, 2], "caller depth": 1},
                observed={"second call": "child started"},
                holds=True,
            ),
            Example(
                title="the load-time value kept",
                given={"host depth": [1, 2], "caller depth": 1},
                observed={"second call": "DEPTH_EXCEEDED"},
                holds=False,
            ),
        ),
    ),
    _st(
        7,
        "at-cap-result",
        "At the cap the tool stays visible; calling it returns an errored tool result, and no "
        "child is published.",
        "Whether a start is allowed depends on runtime state, so the cap is enforced on every "
        "start rather than by hiding the tool with a creation-time filter.",
        _TREE_CAP,
        (
            Example(
                title="a call at the cap",
                given={"maxDepth": 1, "caller depth": 1},
                observed={"tool visible": True, "result": "isError", "children": 0},
                holds=True,
            ),
            Example(
                title="the tool hidden at the cap",
                given={"maxDepth": 1, "caller depth": 1},
                observed={"tool visible": False},
                holds=False,
            ),
        ),
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
        _TREE_CAP,
        (
            Example(
                title="two requests at the cap",
                given={"includeRuntimeContext": True, "at cap": True},
                observed={"notices": 1},
                holds=True,
            ),
            Example(
                title="runtime context off also drops the guard",
                given={"includeRuntimeContext": False, "at cap": True},
                observed={"call result": "child started"},
                holds=False,
            ),
        ),
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
        _LIFECYCLE,
        (
            Example(
                title="the child stops with max-tokens",
                given={"stop reason": "max-tokens"},
                observed={"isError": True, "disposed": True},
                holds=True,
            ),
            Example(
                title="partial output returned as success",
                given={"stop reason": "refusal"},
                observed={"isError": False},
                holds=False,
            ),
        ),
    ),
)
