"""The certifier against the zoo (docs/architecture.md): every deliberately broken target
fails exactly the rule it breaks, and every conforming one certifies without a false failure.

Each module of ``examples/providers`` has a ``provider`` factory, ``BREAKS`` (a rule id, or None)
and optionally ``ALSO_BREAKS`` (rules that fail as explained consequences of that breakage). A
broken target is certified with profile ci at seed 0, in the edition of the rule it breaks
(its campaign a quarter of ci's unless SUBTLE: BROKEN_CAMPAIGN), and again at seed 7 (only its
BREAKS rule, which must fail again: cases are generated, so another seed draws other names and
sizes). A conforming one is certified whole in both editions: one at
seed 0, the other at a seed of its own (drawn from its name); which edition gets seed 0 is
taken in turn along the entries, so each edition is judged at seed 0 for half of them.
``SUBTLE = True`` marks a bug the checks' generated cases may miss: the fuzz campaign of default
certify must find it (at both seeds), and no failure may fall outside BREAKS and ALSO_BREAKS.
"""

from __future__ import annotations

import importlib
import shlex
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from subagent_tck.conformance.cli import main, suite_for
from subagent_tck.conformance.core.certificate import Certificate, Verdict
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.profiles import PROFILES
from subagent_tck.conformance.engine.runner import RunConfig, Suite, certify
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.fuzz.campaign_check import campaign_check
from subagent_tck.spec import RULES_BY_ID, Edition, Level

ROOT = Path(__file__).resolve().parents[1]
ZOO = ROOT / "examples" / "providers"
NAMES = sorted(p.stem for p in ZOO.glob("*.py") if not p.stem.startswith("_"))
FAILING = (Outcome.FAIL, Outcome.ERROR, Outcome.NOT_RUN, Outcome.UNEXPECTED_PASS)


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(ROOT)  # python:examples.providers.NAME:provider works from the root
    monkeypatch.syspath_prepend(str(ROOT))
    yield ROOT


def spec_of(name: str) -> str:
    return f"python:examples.providers.{name}:provider"


EDITIONS = (Edition.PRESET_COMPOSITION, Edition.REQUEST_CONTROLS)


def editions_for(name: str) -> list[Edition | None]:
    """The editions the entry is certified whole in at seed 0: its broken rule's; for a
    conforming entry the one its own seed leaves (other_draw)."""
    breaks = getattr(_module(name), "BREAKS", None)
    if breaks:
        return [RULES_BY_ID[breaks].edition]
    return [EDITIONS[(CONFORMING.index(name) + 1) % 2]]


#: The second seed every broken entry is judged at (the first is 0).
OTHER_SEED = 7


#: The deployments of the campaign a broken entry's whole run has when the fixed cases are
#: what must find its rule (not SUBTLE): a quarter of profile ci's, the first rounds of each
#: shard. The campaign is then there to show that what it does find is filed under the broken
#: rule or an explained consequence (ALSO_BREAKS), never a false failure; the whole campaign
#: was about a third of a broken entry's run (15 entries in one process: 60 s without it, 92 s
#: with it). A conforming entry and a SUBTLE one get profile ci's whole campaign.
BROKEN_CAMPAIGN = PROFILES["ci"].fuzz_examples // 4


def certify_zoo(name: str, edition: Edition | None, out: Path, seed: int = 0,
                rules: tuple[str, ...] = (), campaign: int | None = None) -> Certificate:
    """Default ``certify`` as a user runs it: profile ci, with its fuzz campaign (replay files
    under ``out``; the campaign's deployments, without the cap for slow targets), or with a
    campaign of ``campaign`` deployments. A partial run (``rules``) runs the fixed cases of
    those rules only, as a replay command does."""
    target = load_target(spec_of(name))
    # no time cap: the campaign's deployments run whole however loaded the machine is
    suite = None if rules else suite_for(spec_of(name), "ci", fuzz_budget=float("inf"),
                                         fuzz_output_dir=str(out))
    if suite is not None and campaign is not None:
        check = campaign_check(spec_of(name), budget_seconds=None, max_examples=campaign,
                               output_dir=str(out), profile="ci")
        suite = Suite(suite.rules, {**suite.checks, check.name: check})
    try:
        return certify(target, RunConfig(target_spec=spec_of(name), edition=edition, seed=seed,
                                         rules=rules), suite=suite)
    finally:
        target.close()


def failed_rules(cert: Certificate) -> set[str]:
    return {r.id for r in cert.rules if r.outcome in FAILING}


def test_the_zoo_is_not_empty(at_root: Path) -> None:
    if ZOO.is_dir() and any(ZOO.glob("*.py")):
        assert NAMES, "examples/providers has no zoo module besides __init__.py"
        assert any(getattr(_module(n), "BREAKS", None) is None for n in NAMES), (
            "the zoo needs at least one conforming target (BREAKS = None)")


def _module(name: str) -> object:
    return importlib.import_module(f"examples.providers.{name}")


@pytest.mark.parametrize("name", NAMES)
def test_a_zoo_target_fails_exactly_the_rule_it_breaks(
    at_root: Path, tmp_path: Path, name: str,
) -> None:
    module = _module(name)
    assert hasattr(module, "BREAKS"), f"{name}: define BREAKS (a rule id, or None)"
    assert callable(getattr(module, "provider", None)), f"{name}: define provider()"
    breaks: str | None = module.BREAKS  # type: ignore[attr-defined]
    also = set(getattr(module, "ALSO_BREAKS", ()))
    assert breaks is None or breaks in RULES_BY_ID, f"{name}: unknown rule id {breaks!r}"
    assert also <= set(RULES_BY_ID), f"{name}: ALSO_BREAKS names unknown rule ids"
    whole = breaks is None or getattr(module, "SUBTLE", False)
    for edition in editions_for(name):
        cert = certify_zoo(name, edition, tmp_path,
                           campaign=None if whole else BROKEN_CAMPAIGN)
        failed = failed_rules(cert)
        where = f"{name} ({cert.edition.value}): failing {sorted(failed)}"
        if breaks is None:
            assert not failed and cert.certified, where
            assert {v.verdict for v in cert.verdicts} == {Verdict.CERTIFIED}, where
            continue
        assert failed <= {breaks} | also, f"{where}: false failures outside BREAKS/ALSO_BREAKS"
        # a SUBTLE entry may slip past the fixed cases: default certify's campaign finds it
        assert breaks in failed, f"{where}: the certifier missed {breaks}"
        if RULES_BY_ID[breaks].level == Level.MUST:
            assert not cert.certified and cert.verdict == Verdict.FAILED, where
        else:  # a SHOULD rule's failure is reported and blocks no capability
            assert cert.verdict == Verdict.CERTIFIED, where
        failure = cert.rule(breaks)
        assert failure.failures and failure.replay, where


BROKEN = [n for n in NAMES if getattr(_module(n), "BREAKS", None)]
CONFORMING = [n for n in NAMES if getattr(_module(n), "BREAKS", None) is None]


@pytest.mark.parametrize("name", BROKEN)
def test_a_zoo_target_fails_the_rule_it_breaks_at_another_seed_too(
    at_root: Path, tmp_path: Path, name: str,
) -> None:
    breaks: str = _module(name).BREAKS  # type: ignore[attr-defined]
    # the fixed cases of the broken rule alone (a replay's run); a SUBTLE entry, which only
    # the campaign may find, gets the whole default run, campaign included
    rules = () if getattr(_module(name), "SUBTLE", False) else (breaks,)
    cert = certify_zoo(name, RULES_BY_ID[breaks].edition, tmp_path, seed=OTHER_SEED,
                       rules=rules)
    assert breaks in failed_rules(cert), f"{name}: seed {OTHER_SEED} missed {breaks}"
    assert cert.rule(breaks).failures, name


def other_draw(name: str, index: int) -> tuple[int, Edition]:
    """The other seed and edition a conforming entry is certified whole at besides seed 0: a
    seed drawn from the entry's name (the same in every run and every xdist worker, so a red
    run names its seed; every entry its own, so the zoo reaches many seeds), the editions
    taken in turn along the sorted entries (each edition gets half of them; seed 0 gets the
    other: editions_for)."""
    seed = 1 + zlib.crc32(name.encode("utf-8")) % (2**31 - 1)
    return seed, EDITIONS[index % 2]


def test_every_conforming_entry_is_certified_whole_in_both_editions_one_of_them_at_seed_0(
) -> None:
    for index, name in enumerate(CONFORMING):
        assert {*editions_for(name), other_draw(name, index)[1]} == set(EDITIONS), name
    assert {editions_for(n)[0] for n in CONFORMING} == set(EDITIONS) or len(CONFORMING) < 2


@pytest.mark.parametrize(("name", "seed", "edition"), [
    (n, *other_draw(n, i)) for i, n in enumerate(CONFORMING)])
def test_a_conforming_zoo_target_certifies_at_another_seed(
    at_root: Path, tmp_path: Path, name: str, seed: int, edition: Edition,
) -> None:
    cert = certify_zoo(name, edition, tmp_path, seed=seed)
    assert cert.certified, f"{name} (seed {seed}, {edition.value}): failing {failed_rules(cert)}"


@pytest.mark.parametrize("seed", [2026, 31337])
def test_a_target_wrong_only_for_names_the_kit_never_drew_before_fails_tf_01_at_any_seed(
    at_root: Path, tmp_path: Path, seed: int,
) -> None:
    # deny_skips_unfamiliar_names honours deny entries only for the fixed words the checks
    # used to draw all their names from: TF-01's own generated cases find it at any seed
    # (seed 0 is judged whole by the whole-zoo test above, OTHER_SEED by the one after it)
    cert = certify_zoo("deny_skips_unfamiliar_names", None, tmp_path, seed=seed,
                       rules=("TF-01",))
    assert "TF-01" in failed_rules(cert) and not cert.certified


def _replayable() -> str | None:
    """A zoo entry that breaks a rule of the default edition, found by the fixed cases."""
    for name in NAMES:
        module = _module(name)
        breaks = getattr(module, "BREAKS", None)
        if breaks and not getattr(module, "SUBTLE", False) and \
                RULES_BY_ID[breaks].edition in (None, Edition.PRESET_COMPOSITION):
            return name
    return None


def test_a_printed_replay_command_reproduces_the_failure_alone(
    at_root: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    name = _replayable()
    if name is None:
        assert not NAMES, "the zoo has entries, but none breaks a rule the replay could show"
        return
    breaks = _module(name).BREAKS  # type: ignore[attr-defined]
    assert main(["certify", "--target", spec_of(name), "--seed", "0"]) == 1
    out = capsys.readouterr().out
    replays = [line.split("replay: ", 1)[1] for line in out.splitlines() if "replay: " in line]
    command = next(c for c in replays if f"--rule {breaks} " in c)
    argv = shlex.split(command)
    assert argv[:2] == ["subagent-tck", "certify"]
    assert main(argv[1:]) == 1
    again = capsys.readouterr().out
    assert "1 failing rule(s)" in again and f"{RULES_BY_ID[breaks].title}  [fail]" in again
    assert f"partial run: --rule {breaks}" in again
