"""SP: spawn policy (capability ``spawnPolicy``), rules SP-01 and SP-02 of docs/rules.md.

SP-01 is judged by the ``start`` oracle (the parent's policies) and the ``spawn-policy`` oracle
(a policy validated when installed); SP-02 by the ``offered`` oracle (what the scope's model is
offered to delegate with). The Decisions: the refusal's code, a start that names no preset, and
how a delegation tool names presets (consistent with ST-01's two parameters).
"""

from __future__ import annotations

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import Capability, Family

#: The runtimes' documentation of spawn policies (spec/render.py names it for readers).
_PRACTICE = Source(document="runtimes", section="Known practice")
_DECISION = Source(document="RULES.md", section="Decision")
_ALL = ["depthLimit", "persona", "toolFilter", "outputSchema", "spawnPolicy", "modelSelection"]
_TWO: dict[str, dict[str, object]] = {"reviewer": {}, "writer": {}}
_DENIED = {"code": "SPAWN_DENIED"}


def _start(policies: list[dict[str, list[str]]], preset: str | None,
           presets: dict[str, dict[str, object]] | None = None) -> dict[str, object]:
    request: dict[str, object] = {"provider": "spawn", "prompt": "go"}
    if preset is not None:
        request["preset"] = preset
    return {
        "providers": {"spawn": _ALL},
        "presets": _TWO if presets is None else presets,
        "parent": {"policies": policies},
        "request": request,
    }


_rule = family_rules(Family.SP, _PRACTICE, capability=Capability.SPAWN_POLICY, stateful=True)


def _sp(number: int, slug: str, statement: str, rationale: str, source: Source,
        examples: tuple[Example, ...]) -> Rule:
    return _rule(number, slug, statement, rationale, examples, source=source)


RULES: tuple[Rule, ...] = (
    _sp(
        1,
        "admitted-presets-only",
        "A scope holding spawn policies may start a preset only if every policy admits it, "
        "each reading allow before deny; any other preset is refused with SPAWN_DENIED naming "
        "it, and nothing is created. A policy that names a preset the deployment does not "
        "define is refused when installed, listing every such name, and nothing is installed.",
        "Which roles an agent may hand work to is a limit, like which tools it may call. Decision: "
        "the codes are SPAWN_DENIED and INVALID_SPAWN_POLICY; names are case-sensitive; a start "
        "that names no preset (a request-controls start names none) is outside every policy, "
        "so maxDepth 0 is what forbids every child.",
        _PRACTICE,
        (
            Example(
                title="allow before deny: a preset in both lists is refused",
                oracle="start",
                given=_start([{"allow": ["reviewer", "writer"], "deny": ["writer"]}], "writer"),
                observed=_DENIED,
                holds=True,
            ),
            Example(
                title="the allow list read as overriding the deny list",
                oracle="start",
                given=_start([{"allow": ["reviewer", "writer"], "deny": ["writer"]}], "writer"),
                observed={"ok": True},
                holds=False,
            ),
            Example(
                title="two policies intersect",
                oracle="start",
                given=_start([{"allow": ["reviewer", "writer"]}, {"deny": ["reviewer"]}],
                             "reviewer"),
                observed={"ok": True},
                holds=False,
                note="Either policy alone would admit a preset the other refuses: a union.",
            ),
            Example(
                title="a preset every policy admits is started",
                oracle="start",
                given=_start([{"allow": ["reviewer", "writer"]}, {"deny": ["reviewer"]}],
                             "writer"),
                observed={"ok": True, "childDepth": 1},
                holds=True,
            ),
            Example(
                title="names differ by case",
                oracle="start",
                given=_start([{"allow": ["Reviewer"]}], "reviewer",
                             {"reviewer": {}, "Reviewer": {}}),
                observed=_DENIED,
                holds=True,
            ),
            Example(
                title="a start that names no preset is outside the policy",
                oracle="start",
                given=_start([{"allow": []}], None),
                observed={"ok": True},
                holds=True,
            ),
            Example(
                title="an unknown preset named in a policy is refused at installation",
                oracle="spawn-policy",
                given={"presets": ["reviewer", "writer"],
                       "policy": {"allow": ["reviewer", "Writer", "editor"]}},
                observed={"code": "INVALID_SPAWN_POLICY", "offending": ["Writer", "editor"]},
                holds=True,
            ),
            Example(
                title="the misspelt policy installed anyway",
                oracle="spawn-policy",
                given={"presets": ["reviewer", "writer"], "policy": {"deny": ["Writer"]}},
                observed={"ok": True},
                holds=False,
            ),
            Example(
                title="a preset's own policy naming an unknown preset fails the start",
                oracle="start",
                given=_start([], "reviewer",
                             {"reviewer": {"spawnPolicy": {"allow": ["critic"]}}}),
                observed={"code": "INVALID_SPAWN_POLICY"},
                holds=True,
            ),
        ),
    ),
    _sp(
        2,
        "policy-visible",
        "Nothing the scope's model is offered to delegate with, in a delegation tool's name, "
        "description or parameter schema, names a preset the scope's spawn policies refuse.",
        "A model told of a role it may not use wastes turns on refusals. Decision: the subagent "
        "tool keeps ST-01's two parameters, so a load binds at most one preset by configuration "
        "and names it nowhere; a delegation tool whose parameter picks the preset lists only "
        "the admitted presets.",
        _DECISION,
        (
            Example(
                title="a picker that lists only the admitted presets",
                oracle="offered",
                given={"presets": ["reviewer", "writer"], "policies": [{"deny": ["writer"]}]},
                observed=[{"name": "Agent", "description": "Launch an agent.",
                           "parameters": {"properties": {"subagent_type": {
                               "enum": ["reviewer"]}}}}],
                holds=True,
            ),
            Example(
                title="a description that lists every preset",
                oracle="offered",
                given={"presets": ["reviewer", "writer"], "policies": [{"deny": ["writer"]}]},
                observed=[{"name": "subagent",
                           "description": "Delegate a task. Presets: reviewer, writer."}],
                holds=False,
            ),
            Example(
                title="a longer name is not the refused preset",
                oracle="offered",
                given={"presets": ["writer", "writer_v2"], "policies": [{"deny": ["writer"]}]},
                observed=[{"name": "task", "description": "Agents: writer_v2."}],
                holds=True,
            ),
        ),
    ),
)
