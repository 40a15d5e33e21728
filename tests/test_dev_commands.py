"""README's two commands: the first certifies with only the kit's own dependencies, the second
(identical in .ci/run) finds every pyenv Python 3.10-3.13 through tox.ini by itself."""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: What only the test and dev extras install: certifying must never need one of them
#: (jsonschema is the kit's own: ST-07 draws a tool's extra parameters from its JSON Schema).
DEV_ONLY = ("pytest", "schemathesis", "xdist", "coverage", "tox", "ruff", "mypy")


def _commands() -> list[str]:
    return [line.strip() for line in README.splitlines()[:12] if line.startswith("    python3")]


def test_the_first_command_installs_only_the_kit_and_the_second_the_dev_tools() -> None:
    first, second = _commands()
    assert "pip install -q -e . &&" in first and "[dev]" not in first
    assert first.endswith("subagent-tck certify --target reference")
    # uv installs the development tools (pip took 30 s for them, uv 2 s: CI waits for it)
    assert "uv pip install -q -e '.[dev]'" in second and "tox run-parallel" in second


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    _, second = _commands()
    assert ci.rstrip().splitlines()[-1] == second
    assert "export PYENV_VERSION" not in ci  # tox.ini finds pyenv's Pythons itself


def test_certifying_needs_none_of_the_development_packages(tmp_path: Path) -> None:
    blocked = ", ".join(repr(m) for m in DEV_ONLY)
    code = ("import sys\n"
            f"for name in ({blocked}):\n"
            "    sys.modules[name] = None  # importing it now fails\n"
            "from subagent_tck.conformance.cli import main\n"
            "sys.exit(main(['certify', '--target', 'reference', '--rule', 'TF-01',"
            " '--rule', 'DE-03']))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "PASSED" in done.stdout


def test_tox_gives_every_python_environment_its_pyenv_version() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    envs = [e.strip() for e in tox["tox"]["env_list"].split(",")]
    pythons = [e for e in envs if re.fullmatch(r"py3\d+", e)]
    assert pythons == ["py310", "py311", "py312", "py313"]
    set_env = tox["testenv"]["set_env"]
    for env in pythons:
        version = f"3.{env[3:]}"
        assert re.search(rf"^\s*{env}: PYENV_VERSION = {re.escape(version)}\s*$", set_env,
                         re.MULTILINE), f"tox.ini: {env} names no PYENV_VERSION {version}"
    assert "PYENV_VERSION" not in tox["testenv"].get("pass_env", "")  # set, not inherited


def test_every_suite_and_test_marked_to_run_once_exists() -> None:
    # a renamed file or test would fall silently back into every Python environment's run
    from tests.conftest import ONCE, ONCE_TESTS, RUNTIMES, ZOO

    for where in (*ONCE, *RUNTIMES, *ONCE_TESTS, ZOO):
        assert (ROOT / where).is_file(), f"tests/conftest.py names {where}, which is gone"
    for where, functions in ONCE_TESTS.items():
        source = (ROOT / where).read_text(encoding="utf-8")
        for function in functions:
            assert f"def {function}(" in source, f"{where} has no {function}"
