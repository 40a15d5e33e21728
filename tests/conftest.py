"""Suite-wide settings: Hypothesis profiles (HYPOTHESIS_PROFILE=ci in tox, default `dev`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


#: Suites that are slow and do not depend on the interpreter: tox runs them once, in its `once`
#: and `runtimes` environments, and every Python environment runs the rest (`-m "not once"`;
#: tox.ini). Plain `pytest` runs everything.
ONCE = (
    "tests/test_zoo.py",  # the whole zoo at two seeds, each with default certify's campaign
    "tests/http/test_http_zoo.py",
    "tests/fuzz/test_campaign_check.py",  # long campaigns
    "tests/fuzz/test_campaign.py",
    "tests/fuzz/test_hypofuzz.py",  # HypoFuzz's workers and a real redis-server
    "tests/conformance/checks/test_uncommon_states.py",  # broken targets' states shrunk
    "tests/reports/test_matrix_browser.py",  # the matrix in Debian's chromium (Playwright)
)
#: The once suites that run a real implementation or runtime (Node, npm packages): marked
#: `once` and `runtime`, tox's `runtimes` environment runs them beside `once`, so the two
#: halves of the slow work share the machine's two tox slots.
RUNTIMES = (
    "tests/http/test_http_javascript.py",  # Node: the JavaScript implementation
    "tests/http/test_dsh_adapter.py",  # Node 22: the real DSH
    "tests/http/test_dsh_report.py",
    "tests/http/test_claude_code_adapter.py",  # Claude Code (npm): certified from its traffic
    "tests/http/test_opencode_probe.py",  # opencode (npm): its traffic on the chat gateway
    "tests/http/test_opencode_adapter.py",  # opencode (npm): certified from its traffic
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
        if where in ONCE or where in RUNTIMES:
            item.add_marker(pytest.mark.once)
        if where in RUNTIMES:
            item.add_marker(pytest.mark.runtime)
