"""States the other checks of these rules never build, each drawn from a seeded strategy.

- TF-08 (docs/rules.md#tf-08): a child's tool filter is judged against the global tools
  registered now, not against what its parent sees. The parent here hides some globals with
  its own restriction, has scope-local tools of names no global has, and is in ``ptc`` mode
  (its view lists ``run_code``): a filter naming a hidden global is accepted, one naming a
  parent-local name or ``run_code`` is refused with ``INVALID_TOOL_FILTER`` listing it, and
  nothing is started.
- DE-09 (docs/rules.md#de-09): a stored header that records a deeper position than the tree
  would derive (a child resumed under another deployment's tree, a header written by a newer
  runtime) is what a resume restores: the depth is the header's, never re-derived from the
  parent.
- PE-05 (docs/rules.md#pe-05): a known variable whose value is the empty string renders as
  the empty string; its placeholder never reaches the prompt raw (the ``value || placeholder``
  idiom takes an empty value for a missing one). A placeholder spelled with spaces
  (``{{ name }}``) is the implementation's grammar: refused naming it, or substituted.

The filter is sent the way the run's edition sends one: in the start request
(request-controls) or in a preset the start names (preset-composition).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    PERSONA_SECTION,
    RUN_CODE,
    Capability,
    Edition,
    ErrorCode,
    PresentationMode,
    TckError,
    check_depth,
    render_template,
)

from ...core.protocol import PresetSpec, StartRequest, ToolSpec
from ..check import TARGET_FAULTS, CheckContext, check
from ..partitions import Partition
from . import _names
from ._template_grammar import classify, judge_refusal
from ._texts import variable_name

PROMPT = "Do the task."
PRESET = "fz-filter"


def _has(ctx: CheckContext, capability: Capability) -> bool:
    return ctx.provider is not None and capability in ctx.provider.capabilities


def _listed(exc: TckError, name: str) -> bool:
    listed = exc.details.get("offending")
    if isinstance(listed, (list, tuple)):
        return name in {str(n) for n in listed}
    return re.search(_names.names_token(name), exc.message) is not None


# --- TF-08: a filter judged against the globals, not the parent's view ----------------------


@st.composite
def _parent_states(draw: Any) -> dict[str, Any]:
    names = draw(_names.tool_names(min_size=3, max_size=7))
    split = draw(st.integers(1, len(names) - 2))
    globals_, local_only = names[:split + 1], names[split + 1:]
    hidden = draw(st.lists(st.sampled_from(globals_), min_size=1, max_size=len(globals_),
                           unique=True))
    return {"globals": globals_, "hidden": hidden, "locals": local_only,
            "asked": draw(st.sampled_from(hidden))}


def _start(ctx: CheckContext, dep: Any, parent: str, tool_filter: object) -> Any:
    assert ctx.provider is not None
    if ctx.edition is Edition.REQUEST_CONTROLS:
        return dep.start(StartRequest(parent=parent, provider=ctx.provider.name, prompt=PROMPT,
                                      toolFilter=tool_filter))
    return dep.start(StartRequest(parent=parent, provider=ctx.provider.name, prompt=PROMPT,
                                  preset=PRESET))


BEYOND = (Partition("TF-08", "beyond-the-parent-view", "a parent that hides globals, has locals "
                   "and is in ptc mode: a filter naming a hidden global is accepted, one naming "
                   "a parent-local name or run_code refused", cases=_parent_states()),)


@check("TF-08", name="tool-filter-beyond-the-parent-view", partitions=BEYOND)
def filter_beyond_parent_view(ctx: CheckContext) -> None:
    """A child's filter naming a global its parent's restriction hides is accepted; one naming
    a parent's scope-local name or run_code (in the parent's ptc view) is refused, listing it,
    and starts nothing."""
    if not _has(ctx, Capability.TOOL_FILTER):
        ctx.skip("TF-08", "the provider does not advertise toolFilter")
        return

    def deploy(state: dict[str, Any], tool_filter: object) -> tuple[Any, str]:
        presets = ([] if ctx.edition is Edition.REQUEST_CONTROLS
                   else [PresetSpec(name=PRESET, toolFilter=tool_filter)])
        dep = ctx.deploy(tools=state["globals"], presets=presets)
        root = dep.root().agent
        with ctx.step("TF-08", "restricting the parent, giving it locals and ptc mode"):
            dep.install_restriction(root, {"deny": list(state["hidden"])})
            for name in state["locals"]:
                dep.register_tool(ToolSpec(name=name, description=f"local {name}"), root)
            dep.set_mode(root, PresentationMode.PTC)
        return dep, root

    def body(state: dict[str, Any]) -> None:
        asked = {"allow": [state["asked"]]}
        dep, root = deploy(state, asked)
        with ctx.step("TF-08", f"starting a child with the filter {asked}"):
            try:
                _start(ctx, dep, root, asked)
                refused: TckError | None = None
            except TckError as exc:
                if exc.code is not ErrorCode.INVALID_TOOL_FILTER:
                    raise
                refused = exc
        ctx.expect("TF-08", refused is None, f"a filter naming {state['asked']!r}, a global "
                   "the parent's own restriction hides, names a registered global: it must be "
                   "accepted", "accepted", None if refused is None else refused.to_json())
        for name in (*state["locals"][:1], RUN_CODE):
            asked = {"allow": [name]}
            dep, root = deploy(state, asked)
            before = sorted(dep.agents())
            kind = "run_code" if name == RUN_CODE else "a name only the parent's scope has"
            def refused_start(d: Any = dep, r: str = root, a: object = asked) -> Any:
                return _start(ctx, d, r, a)

            refusal = ctx.expect_error(
                "TF-08", ErrorCode.INVALID_TOOL_FILTER, refused_start,
                f"a filter naming {name!r} ({kind}, in the parent's view)")
            if refusal is not None and refusal.code is ErrorCode.INVALID_TOOL_FILTER:
                ctx.expect("TF-08", _listed(refusal, name), "the refusal must list the "
                           "offending name", [name], refusal.to_json())
                ctx.expect("TF-08", sorted(dep.agents()) == before, "a refused filter starts "
                           "nothing", before, sorted(dep.agents()))

    ctx.cover("TF-08", body)


# --- DE-09: a stored header deeper than the tree ------------------------------------------


DEEPER = (
    Partition("DE-09", "a-little-deeper", "a stored header 1 to 4 levels deeper than the tree",
              cases=st.integers(1, 4)),
    Partition("DE-09", "far-deeper", "a stored header far deeper than the tree",
              cases=st.integers(5, 10**6)),
)


@check("DE-09", name="depth-resume-keeps-a-deeper-header", partitions=DEEPER)
def resume_keeps_deeper_header(ctx: CheckContext) -> None:
    """A child whose stored header records a deeper position than its parent's plus one
    resumes at the stored depth."""
    if not _has(ctx, Capability.DEPTH_LIMIT):
        ctx.skip("DE-09", "the provider does not advertise depthLimit (no cap to hold)")
        return
    assert ctx.provider is not None
    provider = ctx.provider.name

    def body(deeper: int) -> None:
        dep = ctx.deploy()
        root = dep.root().agent
        with ctx.step("DE-09", "starting a child of the root"):
            child = dep.start(StartRequest(parent=root, provider=provider, prompt=PROMPT))
        stored = child.depth + deeper
        header = next((h for h in dep.sessions() if h.session == child.session), None)
        if not ctx.expect("DE-09", header is not None, "the child's session is listed",
                          child.session, [h.session for h in dep.sessions()]):
            return
        assert header is not None
        with ctx.step("DE-09", f"storing delegationDepth {stored} and resuming"):
            dep.put_session_header(header.model_copy(update={"delegationDepth": stored}))
            resumed = dep.resume(child.session)
        after = next((h for h in dep.sessions() if h.session == child.session), None)
        kept = None if after is None else check_depth(after.delegationDepth).value
        ctx.expect("DE-09", resumed.depth == stored and kept == stored,
                   f"a child resumed from a header of depth {stored} (its parent is at "
                   f"{child.depth - 1}) has the stored depth, not one re-derived from the tree",
                   {"agent": stored, "header": stored}, {"agent": resumed.depth, "header": kept})

    ctx.cover("DE-09", body)


# --- PE-05: an empty variable ---------------------------------------------------------------

_TEXT = st.text(st.characters(categories=("Lu", "Ll", "Nd", "Zs", "Po"),
                              exclude_characters="{}"), max_size=16)


@st.composite
def _empty_variable_cases(draw: Any, portable: bool) -> dict[str, Any]:
    names = draw(st.lists(variable_name(portable), min_size=1, max_size=4, unique=True))
    empty = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    variables = {n: "" if n in empty else draw(st.text(min_size=1, max_size=12).filter(
        lambda v: "{{" not in v and "}}" not in v)) for n in names}
    parts = ["Role: " + draw(_TEXT)]  # never empty: an empty persona is PE-03's case
    for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=5)) + empty[:1]:
        space = draw(st.sampled_from(("", " ", "  ")))
        parts += ["{{" + space + name + space + "}}", draw(_TEXT)]
    return {"persona": "".join(parts), "variables": variables}


EMPTY_VARIABLE = (Partition(
    "PE-05", "empty-value", "a known variable whose value is the empty string, in {{name}} and "
    "{{ name }} spellings", cases=lambda ctx: _empty_variable_cases(ctx.portable_variables)),)


@check("PE-05", name="persona-empty-variable", partitions=EMPTY_VARIABLE)
def empty_variable(ctx: CheckContext) -> None:
    """A template variable whose value is empty renders as empty text: the deployment persona
    in the root's prompt carries no raw placeholder."""

    def body(case: dict[str, Any]) -> None:
        expected = render_template(case["persona"], case["variables"]).text
        try:
            dep = ctx.deploy(persona=case["persona"], variables=case["variables"])
            sections = dep.prompt(dep.root().agent)
        except TckError as exc:
            # ``{{ name }}`` with spaces is a spelling of the implementation's own grammar:
            # substituted or refused (naming it), never sent raw (docs/rules.md#PE-05); a
            # refusal of a persona whose placeholders are all ``{{name}}`` is a failure
            if exc.code in TARGET_FAULTS:
                ctx.target_fault("PE-05", "deploying and reading the root's prompt", exc)
            judge_refusal(ctx, exc, classify(case["persona"], case["variables"]),
                          "a deployment persona with an empty variable")
            return
        shown = next((s.text for s in sections if s.name == PERSONA_SECTION), None)
        ctx.expect("PE-05", shown == expected, "a variable whose value is the empty string "
                   "renders as empty text (its placeholder never reaches the prompt)",
                   expected, shown)

    ctx.cover("PE-05", body)
