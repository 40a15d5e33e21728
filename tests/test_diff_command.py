"""``subagent-tck diff OLD.json NEW.json`` (docs/baseline.md#diff): rule outcomes, assertions
that started or stopped failing, capabilities, dialect and timing in text, Markdown and JSON;
exit 1 when something got worse, 0 otherwise, 2 on bad input; a target's text escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import at_root
from markdown_it import MarkdownIt

from subagent_tck.conformance.cli import main

GOOD = "reference"
WORSE = "python:examples.providers.first_offender_only:provider"


pytestmark = pytest.mark.usefixtures("at_root")  # tests/conftest.py


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The reference's TF-01 and TF-08 run, and a zoo target's that breaks TF-08, at seed 0."""
    out = tmp_path_factory.mktemp("diff")
    with pytest.MonkeyPatch.context() as patch:
        at_root(patch)
        for name, target in (("old", GOOD), ("new", WORSE)):
            main(["certify", "--target", target, "--rule", "TF-08", "--rule", "TF-01",
                  "--seed", "0", "--report", f"json={out / name}.json", "--format", "text"])
    return out / "old.json", out / "new.json"


def diff(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main(["diff", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_worse_certificate_exits_1_and_names_the_assertions_that_started_failing(
    certificates: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    old, new = certificates
    code, out, _ = diff(capsys, old, new)
    assert code == 1
    assert "assertions that started failing:" in out and "WORSE:" in out
    started = out.split("assertions that started failing:")[1].split("assertions that")[0]
    assert "TF-08 [target]" in started and "tool-filter-unknown-names" in started
    assert "WORSE TF-08: pass -> fail" in out
    assert "timing:" in out and "WORSE spawn toolFilter: PASSED -> FAILED" in out


def test_the_other_way_round_nothing_got_worse(
    certificates: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    old, new = certificates
    code, out, _ = diff(capsys, new, old)
    assert code == 0 and "nothing got worse" in out
    stopped = out.split("assertions that stopped failing:")[1]
    assert "TF-08 [target]" in stopped
    code, out, _ = diff(capsys, old, old)
    assert code == 0 and "rule outcomes: unchanged" in out


def test_json_and_markdown_say_the_same(
    certificates: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    old, new = certificates
    code, out, _ = diff(capsys, old, new, "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["worse"] is True and data["why"]
    started = [a for a in data["assertions"] if a["change"] == "started"]
    assert started and {a["rule"] for a in started} == {"TF-08"}
    assert data["dialect"] is None and data["catalogue_changed"] is False
    code, out, _ = diff(capsys, old, new, "--format", "markdown")
    assert code == 1 and out.startswith("## subagent-tck diff: ❌ worse")
    assert f"### Assertions that started failing ({len(started)})" in out
    for a in started:
        assert a["assertion"]["fingerprint"] in out


def test_a_dialect_section_is_compared_when_the_certificates_carry_one(
    certificates: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    old, _ = certificates
    data = json.loads(old.read_text("utf-8"))
    data["dialect"]["frame"] = {"child": {"before": "chat-completions frame\n", "after": ""}}
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data), "utf-8")
    code, out, _ = diff(capsys, old, other)
    assert code == 0 and "dialect:" in out and "chat-completions" in out


def test_hostile_text_of_a_target_is_escaped_in_every_format(
    certificates: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    old, new = certificates
    data = json.loads(new.read_text("utf-8"))
    data["target"]["info"]["name"] = "evil\x1b[31m</details><script>x</script>|"
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(data), "utf-8")
    _, out, _ = diff(capsys, old, hostile)
    assert "\x1b" not in out and "\\x1b" in out
    _, out, _ = diff(capsys, old, hostile, "--format", "markdown")
    assert "<script>" not in out and "&lt;script&gt;" in out
    html = MarkdownIt("commonmark").enable("table").render(out)
    assert "<script>" not in html
    _, out, _ = diff(capsys, old, hostile, "--format", "json")
    assert json.loads(out)["new"]["name"].startswith("evil\x1b")


@pytest.mark.parametrize(("content", "needle"), [
    ("{", "is not JSON"),
    ('{"verdict": "ERROR"}', "error report"),
    ('{"kit": "subagent-tck"}', "is not a subagent-tck certificate"),
])
def test_bad_input_is_exit_2(certificates: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
                             tmp_path: Path, content: str, needle: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, "utf-8")
    code, _, err = diff(capsys, certificates[0], bad)
    assert code == 2 and needle in err
    code, _, err = diff(capsys, tmp_path / "missing.json", certificates[0])
    assert code == 2 and "not found" in err
