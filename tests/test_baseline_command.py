"""``subagent-tck baseline write|update`` (docs/baseline.md#the-commands), tried as a CI
maintainer would on zoo targets: a baseline written from a certificate makes the same target
certify at another seed; one more failing assertion in a listed rule fails naming it; update
keeps reasons, drops stale assertions, pins old entries, and refuses to excuse new failures
silently; every bad input is exit 2 with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from examples.providers.first_offender_only import FirstOffenderScope
from examples.providers.local_names_accepted import LocalNamesScope
from subagent_tck.conformance.cli import main
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host

OFFENDER = "python:examples.providers.first_offender_only:provider"
#: first_offender_only's bug and local_names_accepted's at once: TF-08 fails as it does for
#: the first, and in more assertions (a filter naming a local-only tool is accepted).
SKIPS = f"python:{__name__}:both_bugs"


class _BothScope(FirstOffenderScope, LocalNamesScope):
    pass


class _BothHost(Host):
    scope_class = _BothScope


def both_bugs() -> ReferenceTarget:
    return ReferenceTarget(host_class=_BothHost, name="first-offender-and-local-names")


pytestmark = pytest.mark.usefixtures("at_root")  # tests/conftest.py


def certify(out: Path, target: str, seed: int, *extra: str) -> int:
    return main(["certify", "--target", target, "--rule", "TF-08", "--seed", str(seed),
                 "--report", f"json={out}", "--format", "text", *extra])


def test_a_written_baseline_makes_the_target_certify_at_another_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cert, baseline = tmp_path / "c0.json", tmp_path / "b.toml"
    assert certify(cert, OFFENDER, 0) == 1
    assert main(["baseline", "write", str(cert), "--reason", "names one offender",
                 "-o", str(baseline)]) == 0
    assert "failing assertion(s) of 1 rule(s) excused" in capsys.readouterr().out
    text = baseline.read_text("utf-8")
    assert 'rule = "TF-08"' in text and 'reason = "names one offender"' in text
    assert "catalogue_hash = " in text and 'case = "drawn"' in text
    later = tmp_path / "c9.json"
    assert certify(later, OFFENDER, 9, "--baseline", str(baseline)) == 0
    summary = json.loads(later.read_text("utf-8"))["baseline_summary"]
    assert summary["excused"] and not summary["new"] and not summary["stale"]


def test_one_more_failing_assertion_in_a_listed_rule_fails_with_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cert, baseline = tmp_path / "c.json", tmp_path / "b.toml"
    certify(cert, OFFENDER, 0)
    main(["baseline", "write", str(cert), "--reason", "r", "-o", str(baseline)])
    capsys.readouterr()
    assert certify(tmp_path / "s.json", SKIPS, 0, "--baseline", str(baseline)) == 1
    out = capsys.readouterr().out
    assert "new: TF-08 [target]" in out and "→ accepted (inside a listed rule)" in out
    assert "stale" not in out.replace("0 stale", "")


def test_update_keeps_reasons_drops_stale_and_refuses_new_failures_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cert, baseline, other = tmp_path / "c.json", tmp_path / "b.toml", tmp_path / "s.json"
    certify(cert, OFFENDER, 0)
    main(["baseline", "write", str(cert), "--reason", "kept reason", "-o", str(baseline)])
    baseline.write_text("# my own note\n" + baseline.read_text("utf-8"), "utf-8")
    certify(other, SKIPS, 0)
    capsys.readouterr()
    assert main(["baseline", "update", str(baseline), str(other)]) == 1
    out = capsys.readouterr().out
    assert "no entry names (not added" in out
    text = baseline.read_text("utf-8")
    assert text.startswith("# my own note\n") and "kept reason" in text
    assert main(["baseline", "update", str(baseline), str(other), "--accept-new", "--reason",
                 "skips unfamiliar names"]) == 0
    assert "added" in capsys.readouterr().out
    assert certify(tmp_path / "again.json", SKIPS, 3, "--baseline", str(baseline)) == 0


def _offender_beside(tmp_path: Path, baseline_text: str) -> tuple[Path, Path]:
    """A certificate of the first offender at seed 0, and a baseline file of ``baseline_text``
    written by hand."""
    cert, baseline = tmp_path / "c.json", tmp_path / "b.toml"
    certify(cert, OFFENDER, 0)
    baseline.write_text(baseline_text, "utf-8")
    return cert, baseline


def test_update_pins_an_entry_of_the_old_format_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cert, baseline = _offender_beside(
        tmp_path, '# why\n[[expected-fail]]\nrule = "TF-08"\nreason = "old reason"\n')
    assert certify(tmp_path / "x.json", OFFENDER, 0, "--baseline", str(baseline)) == 2
    assert main(["baseline", "update", str(baseline), str(cert)]) == 0
    assert "pinned entry 1" in capsys.readouterr().out
    text = baseline.read_text("utf-8")
    assert "old reason" in text and "assertions = [" in text and "catalogue_hash" in text
    assert certify(tmp_path / "y.json", OFFENDER, 4, "--baseline", str(baseline)) == 0


def test_update_moves_a_baseline_of_another_catalogue_on_only_when_told_keeping_its_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    old = ('catalogue_hash = "0000"\n[[expected-fail]]\nrule = "TF-08"\n'
           'reason = "read in its code"\n')
    cert, baseline = _offender_beside(tmp_path, old)
    assert main(["baseline", "update", str(baseline), str(cert)]) == 2
    assert "--new-catalogue" in capsys.readouterr().err and baseline.read_text("utf-8") == old
    assert main(["baseline", "update", "--new-catalogue", str(baseline), str(cert)]) == 0
    text = baseline.read_text("utf-8")
    assert "read in its code" in text and "assertions = [" in text and '"0000"' not in text
    assert certify(tmp_path / "y.json", OFFENDER, 5, "--baseline", str(baseline)) == 0


def _error_report(path: Path) -> None:
    path.write_text(json.dumps({"verdict": "ERROR", "kit": "subagent-tck"}), "utf-8")


@pytest.mark.parametrize(("make", "needle"), [
    (lambda p: p.write_text("{not json", "utf-8"), "is not JSON"),
    (_error_report, "error report of a run"),
    (lambda p: p.write_text('{"rules": 3}', "utf-8"), "is not a subagent-tck certificate"),
    (lambda p: p.write_text("[1, 2]", "utf-8"), "JSON but not a certificate"),
    (lambda p: None, "not found"),
])
def test_write_refuses_what_is_not_a_certificate_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, needle: str,
) -> None:
    cert, out = tmp_path / "c.json", tmp_path / "b.toml"
    make(cert)  # type: ignore[operator]
    assert main(["baseline", "write", str(cert), "--reason", "r", "-o", str(out)]) == 2
    assert needle in capsys.readouterr().err and not out.exists()


def test_a_certificate_of_unknown_rules_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cert = tmp_path / "c.json"
    certify(cert, OFFENDER, 0)
    data = json.loads(cert.read_text("utf-8"))
    data["rules"][0]["id"] = "ZZ-01"
    cert.write_text(json.dumps(data), "utf-8")
    assert main(["baseline", "write", str(cert), "--reason", "r", "-o",
                 str(tmp_path / "b.toml")]) == 2
    assert "rule id(s) this kit does not know (ZZ-01)" in capsys.readouterr().err


@pytest.mark.parametrize(("baseline", "args", "needle"), [
    ('catalogue_hash = "0000"\n', (), "was written for catalogue 0000"),
    ('[[expected-fail]]\nrule = "TF-99"\nreason = "x"\nscope = "rule"\n', (),
     "unknown rule id 'TF-99'"),
    ("[[expected-fail]\n", (), "not valid TOML"),
    ("", ("--accept-new",), "--accept-new needs --reason"),
    ("", ("--reason", "r"), "pass --accept-new too"),
])
def test_update_refuses_bad_input_and_leaves_the_file_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], baseline: str, args: tuple[str, ...],
    needle: str,
) -> None:
    cert, file = tmp_path / "c.json", tmp_path / "b.toml"
    certify(cert, OFFENDER, 0)
    file.write_text(baseline, "utf-8")
    capsys.readouterr()
    assert main(["baseline", "update", str(file), str(cert), *args]) == 2
    assert needle in capsys.readouterr().err
    assert file.read_text("utf-8") == baseline
