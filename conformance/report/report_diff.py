"""``subagent-tck diff`` as text, Markdown or JSON (docs/baseline.md#diff).

Everything a certificate carries that a target supplied (its name and version, provider names,
the words of an assertion, a dialect) is untrusted: the text goes through ``for_terminal``,
Markdown through ``for_markdown_inline`` (code blocks through ``markdown_fence``), JSON needs
only its lone surrogates escaped.
"""

from __future__ import annotations

import json

from ..core.diff import CertificateDiff
from ..core.untrusted import for_markdown_inline, for_terminal, json_surrogates, markdown_fence


def _t(value: object) -> str:
    return for_terminal(str(value))


def _m(value: object) -> str:
    return for_markdown_inline(str(value))


def _who(provider: str | None) -> str:
    return provider or "target"


def _outcome(value: object) -> str:
    return getattr(value, "value", None) or "absent"


def text(diff: CertificateDiff) -> str:
    old, new = diff.old, diff.new
    lines = [f"old: {_t(old.name)} {_t(old.version)} ({_t(old.target)}), kit {_t(old.kit_version)}"
             f", seed {old.seed}: {old.verdict}",
             f"new: {_t(new.name)} {_t(new.version)} ({_t(new.target)}), kit {_t(new.kit_version)}"
             f", seed {new.seed}: {new.verdict}"]
    if diff.catalogue_changed:
        lines.append(f"catalogue changed: {old.catalogue_hash} -> {new.catalogue_hash}")
    lines += ["", "rule outcomes:" if diff.rules else "rule outcomes: unchanged"]
    lines += [f"  {'WORSE ' if c.worse else ''}{c.rule} {_who(c.provider) if c.provider else ''}"
              .rstrip() + f": {_outcome(c.old)} -> {_outcome(c.new)}" for c in diff.rules]
    for change, label in (("started", "started failing"), ("stopped", "stopped failing")):
        found = [a for a in diff.assertions if a.change == change]
        lines.append(f"assertions that {label}: {len(found)}")
        lines += [f"  {a.rule} [{_t(_who(a.provider))}] {a.assertion.fingerprint} "
                  f"{_t(a.assertion.summary())}" for a in found]
    lines.append("capabilities:" if diff.capabilities else "capabilities: unchanged")
    lines += [f"  {'WORSE ' if c.worse else ''}{_t(c.provider)} {_t(c.capability)}: "
              f"{_t(c.old or 'not advertised')} -> {_t(c.new or 'not advertised')}"
              for c in diff.capabilities]
    if diff.dialect is not None:
        lines += ["dialect:", f"  old: {_t(json.dumps(diff.dialect['old'], sort_keys=True))}",
                  f"  new: {_t(json.dumps(diff.dialect['new'], sort_keys=True))}"]
    lines.append(f"timing: {old.duration:.1f} s -> {new.duration:.1f} s")
    lines += [f"  {_t(t.check)}: {t.old:.2f} s -> {t.new:.2f} s" for t in diff.timing]
    lines += ["", ("WORSE: " + "; ".join(_t(w) for w in diff.why)) if diff.worse
              else "nothing got worse"]
    return "\n".join(lines) + "\n"


def markdown(diff: CertificateDiff) -> str:
    old, new = diff.old, diff.new
    mark = "❌ worse" if diff.worse else "✅ nothing got worse"
    lines = [f"## subagent-tck diff: {mark}", "",
             "| | target | version | kit | seed | verdict |", "|---|---|---|---|---|---|",
             f"| old | {_m(old.name)} | {_m(old.version)} | {_m(old.kit_version)} | {old.seed} "
             f"| {old.verdict} |",
             f"| new | {_m(new.name)} | {_m(new.version)} | {_m(new.kit_version)} | {new.seed} "
             f"| {new.verdict} |", ""]
    if diff.worse:
        lines += ["**What got worse**", ""] + [f"- {_m(w)}" for w in diff.why] + [""]
    if diff.catalogue_changed:
        lines += [f"The catalogue changed: `{old.catalogue_hash}` → `{new.catalogue_hash}`.", ""]
    lines += ["### Rule outcomes", ""]
    if diff.rules:
        lines += ["| rule | provider | old | new | |", "|---|---|---|---|---|"]
        lines += [f"| {c.rule} {_m(c.title)} | {_m(_who(c.provider)) if c.provider else 'overall'}"
                  f" | {_outcome(c.old)} | {_outcome(c.new)} | {'worse' if c.worse else ''} |"
                  for c in diff.rules]
    else:
        lines.append("Unchanged.")
    for change, label in (("started", "Assertions that started failing"),
                          ("stopped", "Assertions that stopped failing")):
        found = [a for a in diff.assertions if a.change == change]
        lines += ["", f"### {label} ({len(found)})", ""]
        lines += [f"- {a.rule} [{_m(_who(a.provider))}] `{a.assertion.fingerprint}` "
                  f"{_m(a.assertion.summary())}" for a in found] or ["None."]
    lines += ["", "### Capabilities", ""]
    lines += [f"- {_m(c.provider)} {_m(c.capability)}: {_m(c.old or 'not advertised')} → "
              f"{_m(c.new or 'not advertised')}{' (worse)' if c.worse else ''}"
              for c in diff.capabilities] or ["Unchanged."]
    if diff.dialect is not None:
        fence, body = markdown_fence(json.dumps(diff.dialect, indent=2, sort_keys=True))
        lines += ["", "### Dialect", "", f"{fence}json", body, fence]
    lines += ["", "### Timing", "", f"{old.duration:.1f} s → {new.duration:.1f} s", ""]
    lines += [f"- {_m(t.check)}: {t.old:.2f} s → {t.new:.2f} s" for t in diff.timing]
    return "\n".join(lines) + "\n"


def as_json(diff: CertificateDiff) -> str:
    return json_surrogates(diff.model_dump_json(indent=2)) + "\n"


FORMATS = {"text": text, "markdown": markdown, "json": as_json}
