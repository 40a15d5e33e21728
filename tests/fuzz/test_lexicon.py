"""The words of a fuzzed deployment are drawn: a target right only for the kit's own preset,
variable and section names is found, and a replay file keeps the words it ran with."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.fuzz import strategies as fs
from subagent_tck.fuzz.campaign import replay, run_campaign, words_of
from subagent_tck.fuzz.lexicon import CLASSIC, PRESET_ROLES, Lexicon, pick_lexicon
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.replay import load_replay
from subagent_tck.fuzz.step import Step
from subagent_tck.reference import Host
from subagent_tck.reference.prompt import render_strict
from subagent_tck.spec import Capability, ErrorCode, TckError

from .conftest import found_by_ci_campaign

#: The variable names the kit wrote every deployment with before its words were drawn.
_KIT_VARIABLES = frozenset(CLASSIC.variables)
_FINDING = {"step": 1, "op": "view", "observation": "view", "rules": [], "message": "m"}
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")


def _render_known_only(template: str, variables: Mapping[str, str], what: str) -> str:
    render_strict(template, variables, what)  # unknown and malformed are refused, as they must
    # the bug: a hand-written table of the variables "in use" decides what is substituted
    return _PLACEHOLDER.sub(lambda m: variables[m.group(1)] if m.group(1) in _KIT_VARIABLES
                            else m.group(0), template)


class _KnownVariablesHost(Host):
    render_template = staticmethod(_render_known_only)


def _lexicons(count: int) -> list[Lexicon]:
    return [pick_lexicon(fs.Code(bytes((seed * 53 + i * 7) % 256 for i in range(96))))
            for seed in range(count)]


def test_a_code_of_zeros_draws_the_classic_words() -> None:
    assert pick_lexicon(fs.Code(b"")) == CLASSIC == Lexicon()
    assert CLASSIC.preset_specs()["Auditor"].tool_filter == {"deny": ["web"]}


def test_every_role_gets_words_of_its_own_across_deployments() -> None:
    drawn = [lx for lx in _lexicons(60) if lx != CLASSIC]
    assert len(drawn) > 30  # one deployment in four keeps the classic words
    for field in ("tools", "ghost", "variables", "value", "presets", "missing", "sections",
                  "field", "title", "prompt", "provider", "captain", "mini", "models"):
        assert len({getattr(lx, field) for lx in drawn}) > (5 if field == "value" else 10), field
    for lx in drawn:
        read, _, _, variant, _ = lx.tools
        assert variant != read and variant.casefold() == read.casefold()
        # the nine roles, the captain and the mini
        assert lx.presets[8][0].isupper() and len(lx.preset_specs()) == len(PRESET_ROLES) + 2
        assert set(lx.variable_values()) == set(lx.variables[:2])
        assert lx.variables[2] in lx.preset_specs()[lx.presets[4]].persona  # type: ignore[operator]
    assert {lx.value for lx in drawn} - {"tck"}  # values besides the classic one
    assert any(not lx.value.isascii() for lx in drawn)


def test_a_replay_file_with_a_lexicon_that_breaks_a_role_is_a_usage_error(
    tmp_path: Path,
) -> None:
    bad = CLASSIC.model_dump(mode="json") | {"tools": ["read", "write", "search", "reed", "web"]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({
        "version": 1, "target": "reference", "lexicon": bad, "steps": [],
        "finding": _FINDING}), encoding="utf-8")
    with pytest.raises(TckError) as caught:
        load_replay(path)
    assert caught.value.code is ErrorCode.USAGE
    assert "must be a case variant of tools[0]" in caught.value.message


def test_a_replay_file_without_a_lexicon_ran_with_the_classic_words(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps({
        "version": 1, "target": "reference", "steps": [],
        "finding": _FINDING}), encoding="utf-8")
    assert load_replay(path).setup().lexicon == CLASSIC


@pytest.mark.parametrize("seed", [0, 7])
def test_a_target_right_only_for_the_kits_variable_names_is_found_at_two_seeds(
    tmp_path: Path, seed: int,
) -> None:
    with found_by_ci_campaign(_KnownVariablesHost, "known-variables-only", "PE-05", seed,
                              tmp_path) as (target, result):
        # the words travel with the finding: the replay file shows it again on its own
        assert result.replay_path is not None
        saved = load_replay(result.replay_path)
        assert saved.lexicon != CLASSIC and not set(saved.lexicon.variables) & _KIT_VARIABLES
        again = replay(target, result.replay_path)
        assert again.reproduced, again.report()
        assert again.words == result.words and any(
            line.startswith("variables") for line in result.words), result.report()


def test_the_same_campaign_passes_the_reference(tmp_path: Path) -> None:
    target = ReferenceTarget(name="reference")
    try:
        result = run_campaign(target, seed=7, budget_seconds=float("inf"), max_examples=60,
                              database_dir=None, output_dir=tmp_path)
    finally:
        target.close()
    assert result.finding is None and result.error is None, result.report()


def test_a_finding_shows_the_presets_its_steps_name_and_the_variables() -> None:
    words = Lexicon(presets=("r", "b", "s", "o", "k", "t", "p", "l", "A"), missing="m")
    setup = Setup(lexicon=words)
    steps = [Step(op="start", args={"parent": "root", "provider": "spawn",
                                    "controls": {"preset": "A"}}),
             Step(op="start", args={"parent": "root", "provider": "spawn",
                                    "controls": {"preset": "m"}}),
             Step(op="start", args={"parent": "root", "provider": "spawn", "controls": "odd"})]
    assert words_of(setup, steps) == [
        "preset 'A': persona 'Auditor of {{project}}.', toolFilter {'deny': ['web']}, "
        "outputSchema None",
        "preset 'm': no such preset",
        "variables {'project': 'tck', 'team': ''} ('nope' undefined)",
    ]
    assert words_of(setup, [Step(op="view", args={"agent": "root"})]) == []


def test_the_newer_controls_reach_the_presets_only_where_a_provider_advertises_them() -> None:
    plain = CLASSIC.preset_specs()
    assert plain["captain"].spawn_policy is None and plain["mini"].model is None
    assert plain["captain"].tool_filter == {"deny": ["web"]}
    both = CLASSIC.preset_specs([Capability.SPAWN_POLICY, Capability.MODEL_SELECTION])
    assert both["captain"].spawn_policy == {"deny": ["reviewer"]}
    assert (both["captain"].model, both["mini"].model) == ("tck-small", "tck-small-mini")
    assert CLASSIC.deployment_model() is None
    assert CLASSIC.deployment_model([Capability.MODEL_SELECTION]) == "tck-large"
