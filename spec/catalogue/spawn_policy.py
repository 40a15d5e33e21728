"""SP: spawn policy (capability ``spawnPolicy``), rules SP-01 and SP-02 of docs/rules.md.

SP-01 is judged by the ``start`` oracle (the parent's policies) and the ``spawn-policy`` oracle
(a policy validated when installed); SP-02 by the ``offered`` oracle (what the scope's model is
offered to delegate with). The Decisions: the refusal's code, a start that names no preset, and
how a delegation tool names presets (consistent with ST-01's two parameters).
"""

from __future__ import annotations

from ..rule import Rule, Source, family_rules
from ..vocabulary import Capability, Family
from ._examples import ALL_CONTROLS, breaks, judged, obeys, start_given

#: The runtimes' documentation of spawn policies (spec/render.py names it for readers).
_PRACTICE = Source(document="runtimes", section="Known practice")
_DECISION = Source(document="RULES.md", section="Decision")
_TWO: dict[str, dict[str, object]] = {"reviewer": {}, "writer": {}}
_DENIED = {"code": "SPAWN_DENIED"}
_OK = {"ok": True}


def _start(policies: list[dict[str, list[str]]], preset: str | None,
           presets: dict[str, dict[str, object]] | None = None) -> dict[str, object]:
    """A start of ``preset`` (None: a start that names none) from a parent holding ``policies``,
    in a deployment that defines ``presets`` (reviewer and writer by default)."""
    return start_given(None, {"spawn": ALL_CONTROLS}, {} if preset is None else {"preset": preset},
                       presets=_TWO if presets is None else presets,
                       parent={"policies": policies})


_sp = family_rules(Family.SP, _PRACTICE, capability=Capability.SPAWN_POLICY, stateful=True)


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
        (
            *judged("start", _start([{"allow": ["reviewer", "writer"], "deny": ["writer"]}],
                                    "writer"),
                    obeys("allow before deny: a preset in both lists is refused", _DENIED),
                    breaks("the allow list read as overriding the deny list", _OK)),
            *judged("start", _start([{"allow": ["reviewer", "writer"]}, {"deny": ["reviewer"]}],
                                    "reviewer"),
                    breaks("two policies intersect", _OK,
                           "Either policy alone would admit a preset the other refuses: a "
                           "union.")),
            *judged("start", _start([{"allow": ["reviewer", "writer"]}, {"deny": ["reviewer"]}],
                                    "writer"),
                    obeys("a preset every policy admits is started",
                          {"ok": True, "childDepth": 1})),
            *judged("start", _start([{"allow": ["Reviewer"]}], "reviewer",
                                    {"reviewer": {}, "Reviewer": {}}),
                    obeys("names differ by case", _DENIED)),
            *judged("start", _start([{"allow": []}], None),
                    obeys("a start that names no preset is outside the policy", _OK)),
            *judged("spawn-policy", {"presets": ["reviewer", "writer"],
                                     "policy": {"allow": ["reviewer", "Writer", "editor"]}},
                    obeys("an unknown preset named in a policy is refused at installation",
                          {"code": "INVALID_SPAWN_POLICY", "offending": ["Writer", "editor"]})),
            *judged("spawn-policy", {"presets": ["reviewer", "writer"],
                                     "policy": {"deny": ["Writer"]}},
                    breaks("the misspelt policy installed anyway", _OK)),
            *judged("start", _start([], "reviewer",
                                    {"reviewer": {"spawnPolicy": {"allow": ["critic"]}}}),
                    obeys("a preset's own policy naming an unknown preset fails the start",
                          {"code": "INVALID_SPAWN_POLICY"})),
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
        (
            *judged("offered", {"presets": ["reviewer", "writer"],
                                "policies": [{"deny": ["writer"]}]},
                    obeys("a picker that lists only the admitted presets",
                          [{"name": "Agent", "description": "Launch an agent.",
                            "parameters": {"properties": {"subagent_type": {
                                "enum": ["reviewer"]}}}}]),
                    breaks("a description that lists every preset",
                           [{"name": "subagent",
                             "description": "Delegate a task. Presets: reviewer, writer."}])),
            *judged("offered", {"presets": ["writer", "writer_v2"],
                                "policies": [{"deny": ["writer"]}]},
                    obeys("a longer name is not the refused preset",
                          [{"name": "task", "description": "Agents: writer_v2."}])),
        ),
        source=_DECISION,
    ),
)
