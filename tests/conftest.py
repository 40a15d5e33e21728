"""Suite-wide settings: Hypothesis profiles (HYPOTHESIS_PROFILE=ci in tox, default `dev`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cli_helpers import at_root as in_root
from cli_helpers import load_fakes
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
# `certify` and the pytest plugin run one check at a time in these tests unless a test asks
# for --jobs (docs/certify.md#jobs): hundreds of runs, on cores the test workers already share
os.environ.setdefault("SUBAGENT_TCK_JOBS", "1")


#: Suites that are slow and do not depend on the interpreter: tox runs them once, in its `once`,
#: `zoo` and `runtimes` environments, and every Python environment runs the rest (`-m "not once"`;
#: tox.ini). Plain `pytest` runs everything.
ONCE = (
    "tests/test_zoo.py",  # the whole zoo at two seeds, each with default certify's campaign
    "tests/http/test_http_zoo.py",
    "tests/fuzz/test_campaign_check.py",  # long campaigns
    "tests/fuzz/test_campaign.py",
    "tests/fuzz/test_hypofuzz.py",  # HypoFuzz's workers and a real redis-server
    "tests/conformance/checks/test_uncommon_states.py",  # broken targets' states shrunk
    # every partition's strategy at many seeds, and the reference certified in both editions
    "tests/conformance/test_partitions_drawn.py",
    "tests/reports/test_matrix_browser.py",  # the matrix in Debian's chromium (Playwright)
    "tests/conformance/test_jobs.py",  # worker processes started, killed, timed out
    "tests/test_parallel_certificates.py",  # whole runs, one job and two
    "tests/http/test_jobs_processes.py",  # adapters started per worker, Ctrl-C
    # the repository read as text: what it cites, how its modules import, how long they are
    "tests/test_citations.py",
    "tests/test_import_directions.py",
    "tests/test_import_cycles.py",
    "tests/test_module_size.py",
)
#: Single tests of suites that otherwise run in every Python environment, once for the same
#: reason: the per-family zoo (every entry of a family through that family's checks, beside
#: tests/test_zoo.py's whole runs) and the campaign against an entry of every family. They
#: were more than a quarter of each Python environment's time.
ONCE_TESTS = {
    "tests/conformance/checks/test_persona.py": (
        "test_a_persona_zoo_entry_fails_exactly_the_rule_it_breaks",),
    "tests/conformance/checks/test_first_request.py": (
        "test_a_first_request_zoo_entry_fails_exactly_the_rule_it_breaks",),
    "tests/conformance/checks/test_editions.py": (
        "test_an_edition_zoo_entry_fails_exactly_the_rule_it_breaks",),
    "tests/conformance/checks/test_zoo_families.py": (
        "test_a_zoo_entry_fails_the_rule_of_its_family_it_breaks_and_no_other",
        "test_a_conforming_zoo_entry_passes_every_check_of_the_family"),
    "tests/conformance/checks/test_subagent_tool.py": (
        "test_a_zoo_entry_fails_exactly_the_rule_it_breaks",),
    "tests/fuzz/test_families.py": (
        "test_the_ci_campaign_catches_a_zoo_entry_of_each_family_and_names_its_rule",),
}
#: The whole zoo: tox's `zoo` runs it, with the single tests of ONCE_TESTS (the per-family zoo
#: and the campaign against an entry of each family), in an environment of its own without coverage
#: tracing (marked `zoo`): they certify again the code every other suite already covers, and
#: tracing made them 1.7 times slower.
ZOO = "tests/test_zoo.py"
#: The once suites that run a real implementation or runtime (Node, npm packages): marked
#: `once` and `runtime`, tox's `runtimes` environment runs them beside `once`, so the two
#: halves of the slow work share the machine's two tox slots.
RUNTIMES = (
    "tests/http/test_http_javascript.py",  # Node: the JavaScript implementation
    "tests/http/test_parallel_javascript.py",
    "tests/http/test_dsh_adapter.py",  # Node 22: the real DSH
    "tests/http/test_dsh_report.py",
    "tests/http/test_dsh_sdk_text.py",  # the DSH adapter's node tests: no Python in them
    "tests/http/test_claude_code_adapter.py",  # Claude Code (npm): certified from its traffic
    "tests/http/test_claude_code_nested.py",  # Claude Code: delegation from a child, its frame
    "tests/http/test_opencode_probe.py",  # opencode (npm): its traffic on the chat gateway
    "tests/http/test_opencode_adapter.py",  # opencode (npm): certified from its traffic
    "tests/http/test_opencode_nested.py",  # opencode: delegation from a child, its frame
    "tests/http/test_codex_adapter.py",  # Codex CLI (npm): certified from its traffic
    "tests/http/test_qwen_code_adapter.py",  # Qwen Code (npm, its own Node 22): the same
    "tests/promises/test_roster_javascript.py",
    "tests/promises/test_roster_dsh.py",
    "tests/promises/test_roster_claude_code.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(str(config.rootpath))
    for item in items:
        try:
            where = Path(str(item.path)).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        function = getattr(item, "originalname", item.name)
        if where in ONCE or where in RUNTIMES or function in ONCE_TESTS.get(where, ()):
            item.add_marker(pytest.mark.once)
        if where == ZOO or function in ONCE_TESTS.get(where, ()):
            item.add_marker(pytest.mark.zoo)
        if where in RUNTIMES:
            item.add_marker(pytest.mark.runtime)


# The fake suite, loaded at collection: pytester restores sys.modules after each in-process
# run, and a kit module imported during one would come back as a second instance, unpatched.
load_fakes()


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The fakes module (cli_helpers.py), with its suite installed as the default one for this
    test."""
    module = load_fakes()
    module.RELEASE.clear()
    module.install(monkeypatch)
    yield module
    module.RELEASE.set()  # free any check a test left hanging


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test runs in the repository's root (cli_helpers.at_root)."""
    in_root(monkeypatch)
    yield


@dataclass(frozen=True)
class KitCaches:
    """The draw cache and the campaign's kept rounds a test starts empty (docs/certify.md
    #draw-cache)."""

    draws: Any
    rounds: Any


@pytest.fixture
def kit_caches(monkeypatch: pytest.MonkeyPatch) -> Iterator[KitCaches]:
    """Fresh, empty caches for the test (the process's own are left as they were), with
    ``SUBAGENT_TCK_DRAW_CACHE`` unset."""
    from subagent_tck.conformance.engine import draw_cache
    from subagent_tck.fuzz import round_cache

    caches = KitCaches(draw_cache.DrawCache(), draw_cache.Kept(round_cache.MAX_KEPT))
    monkeypatch.setattr(draw_cache, "CACHE", caches.draws)
    monkeypatch.setattr(round_cache, "CACHE", caches.rounds)
    monkeypatch.delenv(draw_cache.ENV, raising=False)
    yield caches
