"""adapters/dsh/make_report.py writes docs/dsh.md from a certificate: the rule table, one
section per baseline entry with the run's own messages, and the notes; DSH's text is quoted so
that it cannot become Markdown."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dsh_make_report",
                                                  ROOT / "adapters" / "dsh" / "make_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _certificate(message: str) -> dict[str, Any]:
    rule = {"id": "TF-07", "title": "TF-07 no-op-filter", "level": "MUST",
            "outcome": "expected-fail", "replay": "subagent-tck certify --rule TF-07",
            "providers": [{"provider": None, "outcome": "expected-fail", "reason": ""}],
            "failures": [{"provider": None, "message": message}]}
    passing = {"id": "TF-01", "title": "TF-01 allow-before-deny", "level": "MUST",
               "outcome": "pass", "replay": None, "failures": [],
               "providers": [{"provider": "spawn", "outcome": "pass", "reason": ""}]}
    return {"edition": "request-controls", "seed": 0, "started_at": "2026-12-01T00:00:00Z",
            "verdict": "CERTIFIED", "rules": [passing, rule],
            "counts": {"pass": 1, "expected-fail": 1, "not-applicable": 0, "fail": 0,
                       "error": 0, "unexpected-pass": 0},
            "target": {"info": {"version": "9.9.9", "providers": [
                {"name": "spawn", "capabilities": ["persona"]}]}}}


def test_the_report_has_every_rule_and_a_section_per_baseline_entry() -> None:
    page = _module().render(_certificate("accepted {allow: null}"))
    assert page.startswith("# The certificate of DSH 9.9.9")
    assert "| [TF-01 allow-before-deny](rules.md#tf-01) | MUST | pass | spawn: pass |" in page
    assert "### TF-07 no-op-filter" in page
    assert "`accepted {allow: null}`" in page
    assert "## What DSH does that no rule covers yet" in page


def test_target_text_in_the_report_cannot_break_out_of_its_code_span() -> None:
    page = _module().render(_certificate("evil ` **bold**\n# heading"))
    assert "`evil ' **bold** # heading`" in page
    assert "\n# heading" not in page


def test_the_continuable_run_gets_its_own_section_with_only_the_rules_that_path_answers() -> None:
    module = _module()
    continuable = _certificate("accepted maxDepth on persona-only")
    continuable["rules"][1] = {**continuable["rules"][1], "id": "CA-01",
                               "title": "CA-01 unsupported-rejected",
                               "failures": [{"provider": "persona-only",
                                             "message": "accepted maxDepth on persona-only"}]}
    page = module.render(_certificate("accepted {allow: null}"), continuable)
    section = page.split("## The continuable path", 1)[1].split("## How the adapter", 1)[0]
    assert "| [CA-01 unsupported-rejected](rules.md#ca-01) |" in section
    assert "TF-01" not in section  # not one of CONTINUABLE_RULES
    assert "### CA-01 unsupported-rejected (provider persona-only)" in section
    assert "`accepted maxDepth on persona-only`" in section
    assert "--continuable" in section


def test_the_preset_composition_run_gets_its_own_section_with_its_baseline_entries() -> None:
    module = _module()
    presets = _certificate("a request persona: accepted")
    presets["edition"] = "preset-composition"
    presets["rules"][1] = {**presets["rules"][1], "id": "EN-02",
                           "title": "EN-02 request-overrides-refused",
                           "failures": [{"provider": "spawn",
                                         "message": "a request persona: accepted"}]}
    page = module.render(_certificate("accepted {allow: null}"), None, presets)
    section = page.split("## The preset-composition edition", 1)[1].split("## How the adapter",
                                                                          1)[0]
    assert "| [EN-02 request-overrides-refused](rules.md#en-02) |" in section
    assert "### EN-02 request-overrides-refused" in section  # an entry of baseline.presets.toml
    assert "`a request persona: accepted`" in section
    assert "--edition preset-composition" in section


def test_two_entries_of_one_rule_each_quote_the_failures_they_excuse() -> None:
    certificate = _certificate("unused")
    failing = [{"provider": "spawn", "message": f"failure {n}",
                "assertion": {"fingerprint": f"f{n}"}} for n in (1, 2)]
    certificate["rules"][1] = {**certificate["rules"][1], "failures": failing}
    entries = [{"rule": "TF-07", "reason": f"cause {n}",
                "assertions": [{"fingerprint": f"f{n}"}]} for n in (1, 2)]
    text = _module().divergences(certificate, entries)
    first, second = text.split("cause 2")
    assert "`failure 1`" in first and "`failure 2`" not in first
    assert "`failure 2`" in second and "`failure 1`" not in second
