"""opencode's permission rules for what the kit composes into an agent (docs/opencode.md): a tool
filter as rules over tools, a spawn policy as the ``task`` rules over agent types.

opencode reads an agent's ``permission`` as one ordered list in which the **last** rule whose
permission and pattern match decides (1.18.33: ``evaluate``), so each translation writes a
catch-all first, then the allow entries, then the deny entries: the kit's "allow before deny"
(docs/rules.md#TF-01, docs/rules.md#SP-01) is opencode's own order of rules, and opencode judges.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .proxy import wire_name

#: A kit tool's name as opencode names it (proxy.wire_name, by the tool's server).
Wire = Callable[[str], str]

PROVIDER = "task"  # opencode's task tool with a project agent (docs/opencode.md)


def rule_name(name: str, wire: Wire = wire_name) -> str:
    """A filter entry as an opencode permission key: the kit's tool as opencode names it, but
    opencode's own ``task`` (the delegation tool, docs/opencode.md "Delegation from a child")
    by its own name."""
    return name if name == PROVIDER else wire(name)


def _ordered(value: Any, key: Callable[[str], str]) -> dict[str, str] | None:
    """``{allow?, deny?}`` as ordered rules over ``key(name)``: ``*`` denied where there is an
    allow list, else allowed (None: another shape, written as it is for opencode to judge)."""
    if not isinstance(value, dict):
        return None
    allow, deny = value.get("allow"), value.get("deny")
    lists = [v for v in (allow, deny) if v is not None]
    if set(value) - {"allow", "deny"} or not all(
            isinstance(v, list) and all(isinstance(n, str) for n in v) for v in lists):
        return None
    rules: dict[str, str] = {"*": "deny" if allow is not None else "allow"}
    for name in allow or []:
        rules[key(name)] = "allow"
    for name in deny or []:
        rules.pop(key(name), None)  # last: opencode's last matching rule wins
        rules[key(name)] = "deny"
    return rules


def permission(tool_filter: Any, wire: Wire = wire_name) -> Any:
    """The kit's tool filter as opencode's ordered permission rules (a mapping in the order
    written); a deny-only filter has no catch-all (every other tool keeps opencode's own rule);
    a filter of another shape is written as it is, for opencode to judge."""
    rules = _ordered(tool_filter, lambda name: rule_name(name, wire))
    if rules is None:
        return tool_filter
    if isinstance(tool_filter, dict) and tool_filter.get("allow") is None:
        del rules["*"]
    return rules


def task_rules(policy: Any, agents: Mapping[str, str]) -> Any:
    """A spawn policy as opencode's ``task`` rules: ``task`` asks with the agent type the call
    names as its pattern, so each preset is written as the agent the adapter made of it
    (``agents``: preset name -> agent name); a name that is no preset stays as it is, a pattern
    that matches no agent (opencode checks none). Every rule set starts with ``*``: without a
    matching rule opencode would ask a user, and a server run has none. A policy of another
    shape is written as it is."""
    rules = _ordered(policy, lambda name: agents.get(name, name))
    return policy if rules is None else rules


def with_policy(rules: Any, policy: Any, agents: Mapping[str, str]) -> Any:
    """An agent's permission (``rules``: its tool filter's, or None) with its spawn policy's
    ``task`` rules, unless its filter already decides ``task``: a filter that denies it, or an
    allow list that leaves it out, keeps the agent from delegating at all (docs/opencode.md
    "Delegation from a child")."""
    if policy is None:
        return rules
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        return rules
    if rules.get(PROVIDER) == "deny" or (PROVIDER not in rules and "*" in rules):
        return rules
    return {**rules, PROVIDER: task_rules(policy, agents)}


def allows_task(tool_filter: Any) -> bool:
    """Whether a tool filter's allow list names task and its deny list does not."""
    if not isinstance(tool_filter, dict) or not isinstance(tool_filter.get("allow"), list):
        return False
    deny = tool_filter.get("deny")
    return PROVIDER in tool_filter["allow"] and not (isinstance(deny, list) and PROVIDER in deny)


def task_rules_of(tool_filter: Any, policy: Any, agents: Mapping[str, str],
                  wire: Wire = wire_name) -> Any:
    """The task rules an agent with this filter and spawn policy carries (with_policy), or
    None: none (its filter decides task, or it has no policy)."""
    rules = with_policy(permission(tool_filter, wire) if tool_filter is not None else None,
                        policy, agents)
    return rules.get(PROVIDER) if isinstance(rules, dict) and \
        not isinstance(rules.get(PROVIDER, "deny"), str) else None


def withheld(rules: Any) -> bool:
    """Whether opencode withholds ``task`` from an agent with these task rules: its tool list
    drops a tool whose last rule is ``*``: ``deny`` (1.18.33), a policy of ``{"allow": []}``
    with no deny entry."""
    return isinstance(rules, dict) and list(rules.items())[-1:] == [("*", "deny")]
