"""Target specs: each form loads its target, each mistake names its fix (USAGE)."""

from __future__ import annotations

import itertools
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import QUIET_TARGET

from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.transports.targets import SCHEMES, load_target
from subagent_tck.spec import ErrorCode, TckError

_names = itertools.count()


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("tck_target_"):
            del sys.modules[name]


def module(where: Path, source: str) -> str:
    name = f"tck_target_{next(_names)}"
    (where / f"{name}.py").write_text(textwrap.dedent(source))
    return name


FAKE = QUIET_TARGET + textwrap.dedent("""

    def make():
        return Quiet()

    not_callable = 3

    def wrong():
        return "a string"

    def broken():
        raise ValueError("no config file")
""")


def usage(spec: str) -> str:
    with pytest.raises(TckError) as caught:
        load_target(spec)
    assert caught.value.code == ErrorCode.USAGE
    return caught.value.message


def test_a_python_factory_in_the_current_directory_gives_its_target(workdir: Path) -> None:
    name = module(workdir, FAKE)
    target = load_target(f"python:{name}:make")
    assert isinstance(target, Target) and target.info().name == "quiet"


@pytest.mark.parametrize(("factory", "needle"), [
    ("missing", "has no attribute 'missing': define `def missing(): ...`"),
    ("not_callable", "is a int, not callable"),
    ("wrong", "returned str: return a Target"),
    ("broken", "raised ValueError: no config file: fix the factory"),
])
def test_a_bad_factory_is_a_usage_error_naming_the_fix(
    workdir: Path, factory: str, needle: str,
) -> None:
    name = module(workdir, FAKE)
    assert needle in usage(f"python:{name}:{factory}")


def test_a_missing_module_says_where_to_run_from(workdir: Path) -> None:
    assert "cannot import module 'nowhere.mod'" in usage("python:nowhere.mod:make")


def test_a_module_that_fails_to_import_is_a_usage_error(workdir: Path) -> None:
    name = module(workdir, "import not_installed_anywhere_xyz\n")
    assert "install what it needs" in usage(f"python:{name}:make")
    other = module(workdir, "raise RuntimeError('boom')\n")
    assert "raised RuntimeError: boom: fix the module" in usage(f"python:{other}:make")


@pytest.mark.parametrize("spec", ["python:", "python:mod", "python::f", "python:mod:"])
def test_a_malformed_python_spec_shows_the_form(spec: str) -> None:
    assert "write python:MODULE:FACTORY" in usage(spec)


@pytest.mark.parametrize("spec", ["", "  ", "refrence", "ftp://x", "mod:factory"])
def test_an_unknown_target_lists_the_forms(spec: str) -> None:
    message = usage(spec)
    assert "reference" in message and "python:MODULE:FACTORY" in message


def test_an_http_target_nobody_serves_is_unreachable_not_a_usage_error() -> None:
    with pytest.raises(TckError) as caught:
        load_target("http://127.0.0.1:1")
    assert caught.value.code == ErrorCode.TARGET_UNREACHABLE


def test_the_reference_takes_no_argument() -> None:
    assert "takes no argument" in usage("reference:x")


def test_loading_is_a_registry_of_schemes() -> None:
    assert set(SCHEMES) >= {"reference", "python", "http", "cmd"}
    made: list[str] = []

    def loader(rest: str) -> Target:
        made.append(rest)
        raise TckError(ErrorCode.USAGE, "stop")

    with pytest.raises(TckError, match="stop"):
        load_target("mem:thing", {**SCHEMES, "mem": loader})
    assert made == ["thing"]


def test_the_reference_is_the_built_in_target() -> None:
    info = load_target("reference").info()
    assert [p.name for p in info.providers] == ["spawn", "fork", "acp"]


def test_a_factory_returning_a_provider_is_hosted_by_the_reference(workdir: Path) -> None:
    name = module(workdir, """
        from subagent_tck.reference import InProcessProvider

        def provider():
            return InProcessProvider("mine", ["persona"])
    """)
    info = load_target(f"python:{name}:provider").info()
    assert [p.name for p in info.providers] == ["spawn", "fork", "acp", "mine"]
    assert [c.value for c in info.providers[-1].capabilities] == ["persona"]
