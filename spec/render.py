"""Render the rule catalogue: the living documentation (docs/architecture.md).

Pure functions from :class:`~subagent_tck.spec.rule.Rule` values to text, JSON or Markdown.
Every example is shown with its outcome; an executable example's outcome is the oracle's verdict
(:func:`subagent_tck.spec.judge.judge`), so the documentation cannot claim what the oracle
denies. ``docs/rules.md`` is :func:`docs_markdown`, regenerated with::

    python -m subagent_tck.spec.render > docs/rules.md
"""

from __future__ import annotations

import json
import math
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .catalogue import CATALOGUE
from .errors import ErrorCode, TckError
from .judge import judge
from .rule import Example, Rule
from .vocabulary import Family

FORMATS = ("text", "json", "markdown")
REGENERATE = "python -m subagent_tck.spec.render > docs/rules.md"

_FAMILY_TITLES = {
    Family.TF: ("Tool filter", "capability `toolFilter`"),
    Family.PE: ("Persona", "capability `persona`"),
    Family.DE: (
        "Depth",
        "capability `depthLimit` for the cap; the derivation and domain rules bind every target",
    ),
    Family.CA: ("Capability gating", "every provider"),
    Family.FR: ("First-request consistency", "every provider"),
    Family.EN: ("Entry points by edition", "the edition each rule names"),
    Family.ST: ("The model-facing subagent tool", "component `subagent-tool`"),
    Family.SP: ("Spawn policy", "capability `spawnPolicy`"),
    Family.MO: ("Model selection", "capability `modelSelection`"),
}

_DOCUMENTS = {
    # What a reader can open: the public documents a rule comes from, named by title and
    # version (docs/architecture.md#citations), never a file of the project's own notes.
    "000_f18e7de65ba39cf4.txt": ("DSH's design note \"Configure subagent persona, tool "
                                 "visibility, and depth\" (DSH 0.1.x: "
                                 "https://github.com/deepseek-ai/deepseek-harness, "
                                 ".agents/notes/implemented/feature/"
                                 "2026-07-12-subagent-persona-tool-filter-and-depth.md)"),
    "002_9cf54e4b1767c2c9.txt": ("the README of the npm package @deepseek-ai/dsh-tool-subagent "
                                 "(DSH 0.1.x: "
                                 "https://www.npmjs.com/package/@deepseek-ai/dsh-tool-subagent)"),
    "003_245c1cf8a71a40fd.txt": ("the design note of a third-party DSH plugin that routes twelve "
                                 "roles through one delegate tool (DSH 0.2.0-rc.2)"),
    "RULES.md": "a Decision of this catalogue",
    "runtimes": ("the subagent documentation of the runtimes people delegate with: Claude Code "
                 "(an agent definition's tools, disallowedTools and model; Agent(type) "
                 "permission rules) and opencode (an agent's permission.task and model)"),
}

_WIDTH = 92
_MARK = "\ue000"  # a private-use character: marks a value to show unquoted


def _plain(value: Any, mark: str = "") -> Any:
    """``value`` with only JSON types; a non-finite float becomes ``float('nan')`` etc.,
    wrapped in ``mark`` so that a display can unquote it."""
    if isinstance(value, float) and not math.isfinite(value):
        text = "float('nan')" if math.isnan(value) else f"float('{'-' if value < 0 else ''}inf')"
        return f"{mark}{text}{mark}"
    if isinstance(value, dict):
        return {str(k): _plain(v, mark) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, mark) for v in value]
    return value


def show(value: Any) -> str:
    """One-line display of an example value: JSON, with non-finite floats as ``float('nan')``."""
    text = json.dumps(_plain(value, _MARK), ensure_ascii=False)
    return re.sub(f'"{_MARK}(.*?){_MARK}"', r"\1", text)


def outcome(example: Example) -> bool:
    """Whether the example's observation obeys its rule: the oracle's verdict when the example
    is executable, else the catalogue's statement."""
    return judge(example) if example.oracle is not None else example.holds


def _outcome_words(example: Example) -> str:
    return "holds" if outcome(example) else "does not hold"


def _binds(rule: Rule) -> str:
    if rule.capability is not None:
        return f"capability {rule.capability.value}"
    if rule.component is not None:
        return f"component {rule.component.value}"
    return "every target"


def _edition(rule: Rule) -> str:
    return "both editions" if rule.edition is None else f"edition {rule.edition.value}"


def _source(rule: Rule) -> str:
    document = _DOCUMENTS.get(rule.source.document, rule.source.document)
    return f'{document}, section "{rule.source.section}"'


def _facts(example: Example, code: Callable[[str], str]) -> list[tuple[str, str]]:
    """What an example states, labelled for display: its state (if any), its observation (both
    shown, then marked as code by ``code``) and its note (if any)."""
    facts = [("given", code(show(example.given)))] if example.given else []
    facts.append(("observed", code(show(example.observed))))
    if example.note:
        facts.append(("note", example.note))
    return facts


def _with_examples(lines: list[str], rule: Rule, heading: list[str],
                   example_lines: Callable[[int, Example], list[str]]) -> str:
    """A rule's ``lines`` as text, then (when it has examples) ``heading`` and each example's
    lines, numbered from 1: the one layout of :func:`render_rule`'s text and Markdown."""
    out = [*lines, *heading] if rule.examples else list(lines)
    for number, example in enumerate(rule.examples, 1):
        out += example_lines(number, example)
    return "\n".join(out) + "\n"


def example_dict(example: Example) -> dict[str, Any]:
    """An example as JSON-ready data, with the oracle's verdict (``judged``, None if narrative)."""
    return {
        "title": example.title,
        "oracle": example.oracle,
        "given": _plain(example.given),
        "observed": _plain(example.observed),
        "holds": example.holds,
        "judged": None if example.oracle is None else judge(example),
        "outcome": _outcome_words(example),
        "note": example.note,
    }


def rule_dict(rule: Rule) -> dict[str, Any]:
    """A rule as JSON-ready data."""
    return {
        "id": rule.id,
        "slug": rule.slug,
        "title": rule.title,
        "family": rule.family.value,
        "level": rule.level.value,
        "capability": None if rule.capability is None else rule.capability.value,
        "component": None if rule.component is None else rule.component.value,
        "edition": None if rule.edition is None else rule.edition.value,
        "stateful": rule.stateful,
        "statement": rule.statement,
        "rationale": rule.rationale,
        "source": {"document": rule.source.document, "section": rule.source.section},
        "anchor": rule.anchor,
        "examples": [example_dict(e) for e in rule.examples],
    }


# --- text -------------------------------------------------------------------------------------


def _fill(text: str, indent: str) -> str:
    return textwrap.fill(text, _WIDTH, initial_indent=indent, subsequent_indent=indent)


def _text_rule(rule: Rule) -> str:
    lines = [
        rule.title,
        f"  {rule.level.value} · family {rule.family.value} · {_binds(rule)} · {_edition(rule)}",
        f"  source: {_source(rule)}",
        "",
        _fill(rule.statement, "  "),
        "",
        _fill("Why: " + rule.rationale, "  "),
    ]
    return _with_examples(lines, rule, ["", "  Examples:"], _text_example)


def _text_example(number: int, example: Example) -> list[str]:
    checked = f" (oracle: {example.oracle})" if example.oracle else " (narrative)"
    return [f"  {number}. {example.title}{checked}: {_outcome_words(example)}",
            *(f"       {label + ':':<10}{text}" for label, text in _facts(example, str))]


def _text_catalogue(rules: Sequence[Rule]) -> str:
    out: list[str] = []
    for family, members in _by_family(rules):
        title, binds = _FAMILY_TITLES[family]
        out.append(f"{family.value}: {title} (binds {binds.replace('`', '')})\n")
        for rule in members:
            out.append(f"  {rule.title}  [{rule.level.value}, {_binds(rule)}, {_edition(rule)}]")
            out.append(_fill(rule.statement, "      "))
        out.append("")
    out.append(f"{len(rules)} rules. `subagent-tck explain RULE-ID` shows one with its examples.")
    return "\n".join(out) + "\n"


# --- markdown ---------------------------------------------------------------------------------


def _code(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _by_family(rules: Iterable[Rule]) -> list[tuple[Family, list[Rule]]]:
    groups: dict[Family, list[Rule]] = {}
    for rule in rules:
        groups.setdefault(rule.family, []).append(rule)
    return list(groups.items())


def _markdown_rule(rule: Rule) -> str:
    facts = [f"**{rule.level.value}**", _binds(rule), _edition(rule)]
    facts.append("executable examples" if rule.stateful else "narrative")
    lines = [
        f'<a id="{rule.anchor}"></a>',
        "",
        f"### {rule.title}",
        "",
        " · ".join(facts),
        "",
        rule.statement,
        "",
        f"*Why:* {rule.rationale}",
        "",
        f"*Source:* {_source(rule)}.",
    ]
    return _with_examples(lines, rule, ["", "Examples:", ""], _markdown_example)


def _markdown_example(number: int, example: Example) -> list[str]:
    checked = f"oracle {_code(example.oracle)}" if example.oracle else "narrative"
    return [f"{number}. **{example.title}**: {_outcome_words(example)} ({checked})",
            *(f"   - {label}: {text}" for label, text in _facts(example, _code))]


def _markdown_body(rules: Sequence[Rule]) -> str:
    parts: list[str] = []
    for family, members in _by_family(rules):
        title, binds = _FAMILY_TITLES[family]
        parts.append(f'<a id="family-{family.value.lower()}"></a>\n')
        parts.append(f"## {family.value}: {title}\n")
        parts.append(f"Binds: {binds}.\n")
        parts.extend(_markdown_rule(rule) for rule in members)
    return "\n".join(parts)


def _markdown_contents(rules: Sequence[Rule]) -> str:
    lines = ["## Contents", ""]
    for family, members in _by_family(rules):
        title, _ = _FAMILY_TITLES[family]
        lines.append(f"- [{family.value}: {title}](#family-{family.value.lower()})")
        lines.extend(f"  - [{rule.title}](#{rule.anchor}) ({rule.level.value})" for rule in members)
    return "\n".join(lines) + "\n"


def docs_markdown() -> str:
    """The content of ``docs/rules.md``: the whole catalogue with its examples."""
    intro = (
        "# The rule catalogue of subagent-tck\n\n"
        "This file is generated from the rule values in `spec/catalogue/` with\n"
        f"`{REGENERATE}`. Never edit it by hand: change the\n"
        "rules and regenerate; a test fails while it is stale.\n\n"
        "Each rule has a fixed id (used by the certificate, the command line, the pytest items\n"
        "and baseline files) and a level: a MUST rule fails certification, a SHOULD rule is only\n"
        "reported. Every example says whether its observation obeys the rule. An example with an\n"
        "oracle is executable: the outcome shown is the spec oracle's verdict, and the test\n"
        "suite checks it against the catalogue. Narrative examples describe behaviour over\n"
        "time. Values Python has but JSON lacks are shown as `float('nan')` and the like.\n"
    )
    return "\n".join([intro, _markdown_contents(CATALOGUE), _markdown_body(CATALOGUE)])


# --- public entry points ----------------------------------------------------------------------


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise TckError(
            ErrorCode.USAGE, f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}"
        )


def render_catalogue(rules: Sequence[Rule], fmt: str = "text") -> str:
    """The catalogue (or a selection of it) as ``text``, ``json`` or ``markdown``."""
    _check_format(fmt)
    if fmt == "json":
        return json.dumps([rule_dict(r) for r in rules], indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return _markdown_body(rules)
    return _text_catalogue(rules)


def render_rule(rule: Rule, fmt: str = "text") -> str:
    """One rule with everything about it and every example (``subagent-tck explain``)."""
    _check_format(fmt)
    if fmt == "json":
        return json.dumps(rule_dict(rule), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return _markdown_rule(rule)
    return _text_rule(rule)


def main() -> None:
    """Print :func:`docs_markdown` as UTF-8 with ``\\n`` line ends, whatever the platform."""
    sys.stdout.flush()
    sys.stdout.buffer.write(docs_markdown().encode("utf-8"))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
