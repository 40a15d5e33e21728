"""Prompt sections: most specific wins, strict templates, guidance follows visibility.

A section is a named template. The deployment holds sections in order (the persona,
``deployment:persona-prefix``, first); a scope may register sections too, and a scope section
replaces the deployment section of the same name in the same position (PE-01, through
:func:`spec.resolve_sections`). Templates are strict (PE-05, :func:`spec.render_template`): a
template is rendered when it is registered, so a bad one is refused then and no prompt ever
carries a raw placeholder. A section may name the tool it ``guides``; it is left out of the
prompt of any scope whose view lacks that tool (TF-16). There is one channel: the system text of
a model request is :func:`spec.assemble_system_prompt` of exactly these sections (PE-04).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from subagent_tck.spec import (
    PERSONA_SECTION,
    ErrorCode,
    Section,
    TckError,
    render_template,
    resolve_sections,
)


@dataclass(frozen=True)
class PromptSection:
    """A named template; ``guides`` names the tool whose use it explains (TF-16)."""

    name: str
    template: str
    guides: str | None = None


def render_strict(template: str, variables: Mapping[str, str], what: str) -> str:
    """Render ``template`` or raise INVALID_TEMPLATE naming the placeholders at fault."""
    verdict = render_template(template, variables)
    if verdict.text is None:
        raise TckError(
            ErrorCode.INVALID_TEMPLATE,
            f"{what}: {verdict.reason}; use only the deployment's variables "
            f"({', '.join(sorted(variables)) or 'none defined'}) as {{{{name}}}}",
            {"unknown": list(verdict.unknown), "malformed": list(verdict.malformed)},
        )
    return verdict.text


def validate_section(section: object, variables: Mapping[str, str]) -> PromptSection:
    """Refuse a malformed section (INVALID_REQUEST) or a bad template (INVALID_TEMPLATE)."""
    if not isinstance(section, PromptSection) or not isinstance(section.name, str):
        raise TckError(ErrorCode.INVALID_REQUEST, "give a PromptSection(name, template, guides)")
    if not section.name or not isinstance(section.template, str):
        raise TckError(
            ErrorCode.INVALID_REQUEST, "a section needs a non-empty name and a string template"
        )
    if section.guides is not None and not isinstance(section.guides, str):
        raise TckError(ErrorCode.INVALID_REQUEST, "a section's guides must name one tool")
    render_strict(section.template, variables, f"section {section.name!r}")
    return section


def assemble_sections(
    deployment: Sequence[PromptSection],
    scoped: Sequence[PromptSection],
    visible: Collection[str],
    variables: Mapping[str, str],
    render: Callable[[str, Mapping[str, str], str], str] = render_strict,
) -> tuple[Section, ...]:
    """The rendered sections of one scope's prompt, in order (PE-01, TF-16); each template is
    rendered by ``render`` (PE-05: :func:`render_strict`)."""
    names = {s.name for s in deployment}
    if PERSONA_SECTION not in names:
        # A child persona takes the persona's place (first) even without a deployment persona.
        persona = [s for s in scoped if s.name == PERSONA_SECTION]
        deployment = [*persona, *deployment]
    by_name = {s.name: s for s in deployment}
    by_name.update({s.name: s for s in scoped})
    resolved = resolve_sections(
        [Section(s.name, s.template) for s in deployment],
        [Section(s.name, s.template) for s in scoped],
    )
    out: list[Section] = []
    for item in resolved:
        guides = by_name[item.name].guides
        if guides is not None and guides not in visible:
            continue
        out.append(Section(item.name, render(item.text, variables, item.name)))
    return tuple(out)
