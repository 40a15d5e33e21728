"""The fuzzer's names vary with the seed: a target that is wrong only for tool names the kit's
fixed alphabet never used is found at any two seeds, and named TF-01."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from subagent_tck.fuzz import strategies as fs
from subagent_tck.fuzz.lexicon import CLASSIC
from subagent_tck.fuzz.tool_model import TOOL_NAMES
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope
from subagent_tck.spec import Restriction

from .conftest import found_by_ci_campaign

#: The names a target "tested against" (every fixed name of the kit): right for these only.
KNOWN = frozenset((*CLASSIC.register_names, *CLASSIC.extra_names, *TOOL_NAMES))


class _KnownDenyScope:
    def __init__(self, scope: Scope) -> None:
        self._scope = scope

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scope, name)

    def restrictions(self) -> tuple[Restriction, ...]:
        # the bug: deny entries for names that do not look like the kit's are dropped
        return tuple(Restriction(r.allow, None if r.deny is None else frozenset(
            n for n in r.deny if n in KNOWN)) for r in self._scope.restrictions())


class _KnownDenyResolver(Resolver):
    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        if scope is None:
            return super().view(None)
        return super().view(_KnownDenyScope(scope))  # type: ignore[arg-type]


class _KnownDenyHost(Host):
    resolver_class = _KnownDenyResolver


def test_a_deployments_vocabulary_holds_the_core_and_generated_names() -> None:
    seen: set[str] = set()
    for seed in range(40):
        core = CLASSIC.register_names
        names = fs.pick_vocabulary(fs.Code(bytes((seed * 37 + i) % 256 for i in range(32))), core)
        assert names[: len(core) - 1] == core[:-1]
        assert names[-1] == "run_code" and len(set(names)) == len(names)
        seen.update(n for n in names if n not in KNOWN)
    assert any(not n.isascii() for n in seen) and any(len(n) >= 64 for n in seen)
    assert any(n.startswith("mcp__") for n in seen)
    assert any(n.casefold() in {k.casefold() for k in KNOWN} for n in seen)  # case variants


@pytest.mark.parametrize("seed", [0, 7])
def test_a_target_wrong_only_for_names_the_kit_never_used_is_found_at_two_seeds(
    tmp_path: Path, seed: int,
) -> None:
    with found_by_ci_campaign(_KnownDenyHost, "known-deny-only", "TF-01", seed,
                              tmp_path) as (_, result):
        # the restriction that shows it denies a name the kit never used (installed, a start's
        # toolFilter, or the drawn toolFilter of a preset a start names: the words the finding
        # shows, "with preset 'x': persona ..., toolFilter {...}, outputSchema ...")
        restrictions = [s.args.get("value") if s.op == "restrict" else
                        s.args.get("controls", {}).get("toolFilter") for s in result.counterexample]
        restrictions += [ast.literal_eval(m.group(1)) for line in result.words
                         if (m := re.search(r"toolFilter (\{.*\}), outputSchema", line))]
        assert any(set(r.get("deny") or ()) - KNOWN for r in restrictions if isinstance(r, dict)), (
            result.report())
