"""The matrix (docs/matrix.md): certificates read tolerantly, cells and columns as the
certificates say, trends that tell a new rule from a regression, ``matrix.json`` valid against
its committed schema, the same bytes from the same certificates in any order, and the command
line's exit codes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest

from subagent_tck.conformance.cli import main
from subagent_tck.conformance.report.matrix_model import (
    REGENERATE,
    Matrix,
    build,
    json_schema,
    version_key,
)
from subagent_tck.conformance.report.matrix_read import read_certificate
from subagent_tck.conformance.report.matrix_site import pages, render_json
from subagent_tck.spec import CATALOGUE, ErrorCode, TckError

from .matrix_certificates import ROOT, STORED, certificate, failing, rule, write

SCHEMA_FILE = ROOT / "conformance" / "report" / "matrix.schema.json"


def test_the_committed_matrix_schema_is_fresh() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == json_schema(), (
        f"conformance/report/matrix.schema.json is stale: run `{REGENERATE}`")


def test_a_certificate_is_named_by_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    path = write(tmp_path / "a.json", certificate())
    source = read_certificate(path)
    assert source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert source.file == "a.json"


def test_a_certificate_is_read_tolerantly_of_fields_added_and_fields_it_lacks(
        tmp_path: Path) -> None:
    document = certificate(dialect={"wire": "chat"}, partitions=[1, 2])
    for entry in document["rules"]:
        entry.pop("component", None)
        entry.pop("replay", None)
        for failure in entry["failures"]:
            failure["fingerprint"] = "abc"
    del document["verdicts"], document["checks"], document["counts"]
    matrix = build([read_certificate(write(tmp_path / "a.json", document))])
    assert [c.outcome for row in matrix.rows for c in row.cells] == [
        r["outcome"] for r in document["rules"]]


@pytest.mark.parametrize(("content", "says"), [
    (b"not json", "is not JSON"),
    (json.dumps({"verdict": "ERROR", "error": {"code": "TARGET_UNREACHABLE"}}).encode(),
     "error report"),
    (json.dumps({"rules": []}).encode(), "is not a subagent-tck certificate"),
    (json.dumps([1, 2]).encode(), "is not a subagent-tck certificate"),
])
def test_a_file_that_is_not_a_certificate_is_a_usage_error_naming_it(
        tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    with pytest.raises(TckError) as caught:
        read_certificate(path)
    assert caught.value.code == ErrorCode.USAGE
    assert says in str(caught.value) and "odd.json" in str(caught.value)
    with pytest.raises(TckError, match="cannot read"):
        read_certificate(tmp_path / "missing.json")
    with pytest.raises(TckError, match="at least one"):
        build([])


def test_cells_say_the_certificates_outcomes_and_the_failing_cells_their_direction(
        tmp_path: Path) -> None:
    red = failing(certificate("red"), "TF-01", [["a", "global"]],
                  [["a", "global"], ["b", "global"]])
    red = failing(red, "TF-09", [["a", "global"]], [], outcome="expected-fail",
                  reason="a known bug")
    matrix = build([read_certificate(write(tmp_path / "red.json", red))])
    cells = {row.rule: row.cells[0] for row in matrix.rows}
    assert cells["TF-01"].outcome == "fail" and cells["TF-01"].direction == "open"
    assert cells["TF-09"].outcome == "expected-fail" and cells["TF-09"].direction == "closed"
    assert cells["TF-09"].reason == "target: a known bug"
    assert cells["TF-01"].assertions[0].replay == "subagent-tck certify --target x --rule TF-01"
    assert cells["TF-01"].replay == rule(red, "TF-01")["replay"]
    assert all(c.direction is None for r, c in cells.items() if r not in ("TF-01", "TF-09"))
    # a baselined failure's certificate has no replay: the kit's command is made for it
    rule(red, "TF-09")["replay"] = None
    (row,) = [r for r in build([read_certificate(write(tmp_path / "b.json", red))]).rows
              if r.rule == "TF-09"]
    assert row.cells[0].replay == (f"subagent-tck certify --target cmd:red --rule TF-09 "
                                   f"--seed {red['seed']}")
    column = matrix.columns[0]
    assert (column.fail_open, column.fail_closed) == (1, 1)
    assert column.passed == sum(r["outcome"] == "pass" for r in red["rules"])
    assert cells["TF-01"].href == f"{column.page}#tf-01"


def test_rows_follow_the_catalogue_and_link_to_its_anchors(tmp_path: Path) -> None:
    matrix = build([read_certificate(write(tmp_path / "a.json", certificate()))],
                   rules_href="https://example.test/rules.md")
    assert [row.rule for row in matrix.rows] == [r.id for r in CATALOGUE]
    assert matrix.rows[0].href == f"https://example.test/rules.md#{CATALOGUE[0].id.lower()}"


def test_the_same_certificates_in_any_order_give_the_same_bytes(tmp_path: Path) -> None:
    paths = [write(tmp_path / f"{i}.json", certificate(name, version))
             for i, (name, version) in enumerate([("b", "2.0.10"), ("a", "1"), ("b", "2.0.9")])]
    first = pages(build([read_certificate(p) for p in paths]))
    second = pages(build([read_certificate(p) for p in reversed(paths)]))
    assert first == second
    matrix = build([read_certificate(p) for p in paths])
    assert [(c.implementation, c.version) for c in matrix.columns] == [
        ("a", "1"), ("b", "2.0.9"), ("b", "2.0.10")]
    assert version_key("2.1.9") < version_key("2.1.10") < version_key("10.0")


def test_two_certificates_of_one_version_get_distinct_columns(tmp_path: Path) -> None:
    one = write(tmp_path / "1.json", certificate(seed=1))
    two = write(tmp_path / "2.json", certificate(seed=2))
    matrix = build([read_certificate(one), read_certificate(two)])
    ids = [c.id for c in matrix.columns]
    assert len(set(ids)) == 2 and all(i.startswith("runtime-1.0.0-preset-composition-")
                                      for i in ids)


def test_a_trend_marks_a_new_catalogue_and_tells_a_new_rule_from_a_regression(
        tmp_path: Path) -> None:
    old = certificate(version="1.0", catalogue_hash="0" * 64)
    old["rules"] = [r for r in old["rules"] if r["id"] != "ST-09"]  # the rule came later
    middle = failing(certificate(version="1.1", catalogue_hash="0" * 64), "TF-02",
                     [["a", "global"]], [])
    middle["rules"] = [r for r in middle["rules"] if r["id"] != "ST-09"]
    new = failing(certificate(version="1.2"), "ST-09", {"isError": True}, {"isError": False})
    new = failing(new, "TF-03", [], [["x", "global"]])
    matrix = build([read_certificate(write(tmp_path / f"{i}.json", d))
                    for i, d in enumerate([new, old, middle])])
    (line,) = matrix.lines
    assert [p.version for p in line.points] == ["1.0", "1.1", "1.2"]
    assert [p.catalogue_changed for p in line.points] == [False, False, True]
    assert line.points[2].new_rules == ["ST-09"]
    kinds = {(c.rule, c.column.split("-")[1]): c.kind for c in line.changes}
    assert kinds[("TF-02", "1.1")] == "regression"
    assert kinds[("TF-02", "1.2")] == "fixed"
    assert kinds[("ST-09", "1.2")] == "new-rule"
    assert kinds[("TF-03", "1.2")] == "catalogue-changed"
    cells = {row.rule: row.cells for row in matrix.rows}
    assert cells["ST-09"][0].outcome == "absent"
    assert [p.fail_open for p in line.points] == [0, 0, 2]


def test_a_target_at_one_version_has_a_badge_and_no_trend(tmp_path: Path) -> None:
    matrix = build([read_certificate(write(tmp_path / "a.json", certificate()))])
    (line,) = matrix.lines
    assert line.points == [] and line.badge == "badges/runtime-preset-composition.svg"


def test_matrix_json_validates_against_its_committed_schema_and_reads_back(
        tmp_path: Path) -> None:
    red = failing(certificate("red"), "DE-01", 2, 1)
    matrix = build([read_certificate(write(tmp_path / "a.json", red)),
                    *(read_certificate(p) for p in sorted(STORED.glob("*.json")))])
    document = json.loads(render_json(matrix))
    jsonschema.validate(document, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    assert Matrix.model_validate(document) == matrix


def test_the_command_line_writes_the_site_and_refuses_a_file_that_is_no_certificate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "good.json", certificate())
    out = tmp_path / "site"
    assert main(["matrix", str(good), "-o", str(out)]) == 0
    assert "1 certificate(s)" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} >= {"index.html", "matrix.json", "trend.html",
                                                "targets", "badges"}
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    assert main(["matrix", str(good), str(bad), "-o", str(elsewhere)]) == 2
    assert "bad.json" in capsys.readouterr().err and not elsewhere.exists()
    assert main(["matrix", str(good)]) == 2  # -o is required
    assert main(["matrix", str(good), "-o", str(good)]) == 2  # a file, not a folder


def test_a_rebuild_removes_the_pages_of_certificates_no_longer_given(tmp_path: Path) -> None:
    one = write(tmp_path / "1.json", certificate("one"))
    two = write(tmp_path / "2.json", certificate("two"))
    out = tmp_path / "site"
    assert main(["matrix", str(one), str(two), "-o", str(out)]) == 0
    assert main(["matrix", str(one), "-o", str(out)]) == 0
    assert sorted(p.name for p in (out / "targets").iterdir()) == [
        "one-1.0.0-preset-composition.html"]
    assert sorted(p.name for p in (out / "badges").iterdir()) == [
        "one-preset-composition.svg"]


def test_a_rule_gone_from_a_newer_catalogue_and_a_changed_direction_are_told_apart(
        tmp_path: Path) -> None:
    old = failing(certificate(version="1"), "TF-01", [["a", "global"]], [])  # closed
    new = failing(certificate(version="2", catalogue_hash="f" * 64), "TF-01",
                  [["a", "global"]], [["a", "global"], ["b", "global"]])  # open
    new["rules"] = [r for r in new["rules"] if r["id"] != "PE-01"]
    new["seed"] = None  # an older kit's certificate may lack it: no replay is made up
    rule(new, "TF-01")["replay"] = None
    matrix = build([read_certificate(write(tmp_path / f"{i}.json", d))
                    for i, d in enumerate((old, new))])
    kinds = {c.rule: (c.kind, c.before, c.after) for c in matrix.lines[0].changes}
    assert kinds["TF-01"] == ("changed", "fail (closed)", "fail (open)")
    assert kinds["PE-01"] == ("gone", "pass", "absent")
    assert matrix.lines[0].points[1].gone_rules == ["PE-01"]
    (row,) = [r for r in matrix.rows if r.rule == "TF-01"]
    assert row.cells[1].replay is None
