"""Every check's partitions are drawn at every seed by the default profile, by construction
(docs/certify.md#partitions): a partition with cases is drawn by ``CheckContext.cover`` (its
strategy run at many seeds here, cheaply, without a target: every partition drawn, every value
inside its partition), and every other one by a hand-written case the check always runs (a
certify of the reference shows each one drawn that way, never only by a property's chance)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from subagent_tck.conformance.core.dialect import ToolNameFolding
from subagent_tck.conformance.core.drawn import Drawing
from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.checks import load_checks
from subagent_tck.conformance.engine.profiles import DEFAULT, PROFILES
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import CATALOGUE, Edition

#: Seeds the strategies are drawn at: the first few, some spread over the seed space, and
#: seeds the kit's stability runs met (benchmarks/README.md).
SEEDS = [*range(0, 12), *(2**k + 7 for k in (10, 16, 20, 24, 28, 31)), 4206720533, 707196180,
         254417151, 1032911788, 3754257782, 3953958751]
FOLDING = ToolNameFolding(keeps="A-Za-z0-9_-", utf16=True)


def covered() -> Iterator[tuple[str, str]]:
    for chk in load_checks().values():
        for rule in sorted({p.rule for p in chk.partitions if p.cases is not None}):
            yield chk.name, rule


def drawing(chk: Check, seed: int, portable: bool) -> CheckContext:
    # a context in which every partition exists: one declaring a tool-name folding too (TF-01's
    # folded-names, docs/driver-api.md#tool-name-folding)
    return CheckContext(target=None, check=chk, edition=Edition.PRESET_COMPOSITION,  # type: ignore[arg-type]
                        provider=None, providers=[], seed=seed,
                        max_examples=PROFILES[DEFAULT].max_examples,
                        portable_variables=portable, folding=FOLDING)


@pytest.mark.parametrize(("name", "rule"), sorted(covered()))
def test_cover_draws_every_partition_of_a_check_inside_it_at_every_seed(
    name: str, rule: str,
) -> None:
    chk = load_checks()[name]
    parts = [p for p in chk.partitions if p.rule == rule and p.cases is not None]
    wanted = {p.name for p in parts}
    # cases that depend on the context: drawn for a target that refuses unportable names too
    contexts = (False, True) if any(callable(p.cases) for p in parts) else (False,)
    for portable in contexts:
        for seed in SEEDS:
            ctx = drawing(chk, seed, portable)
            ctx.cover(rule, lambda _: None)  # a value outside its partition raises here
            drawn = {n for (r, n), how in ctx.drawn.items() if r == rule and how is Drawing.COVER}
            assert drawn == wanted, f"seed {seed}: {sorted(wanted - drawn)} undrawn"
            assert not ctx.failures


def test_every_check_declares_partitions_and_every_rule_has_some() -> None:
    checks = [c for c in load_checks().values() if not c.supplementary]
    assert [c.name for c in checks if not c.partitions] == []
    declared = {p.rule for c in checks for p in c.partitions}
    assert [r.id for r in CATALOGUE if r.id not in declared] == []


@pytest.mark.parametrize("edition", list(Edition))
def test_the_default_profile_draws_every_partition_on_the_reference_never_by_chance(
    edition: Edition,
) -> None:
    cert = certify(reference_target(), RunConfig(edition=edition, seed=20261203))
    assert cert.certified
    seen = [(r.id, p) for r in cert.rules for p in r.partitions if p.drawn_for or p.undrawn_for]
    assert seen
    undrawn = [f"{rule} {p.check} {p.name} {p.undrawn_for}" for rule, p in seen if not p.drawn]
    assert undrawn == []
    chance = [f"{rule} {p.check} {p.name}" for rule, p in seen if p.by is Drawing.CHANCE]
    assert chance == []
