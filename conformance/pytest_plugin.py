"""The pytest plugin: ``pytest --subagent-tck-target TARGET`` collects one item per rule id.

Inert unless ``--subagent-tck-target`` is given. Then a collector, ``subagent-tck``, joins the
session's own collection (so "collected N items", ``--collect-only``, ``-k``, ``-m`` and
xdist count and select rule items like any test), with one item per rule, named after its rule
id (select with ``-k TF-01``) and marked with its family (``tf`` ...), its capability
(``toolFilter`` ...), its level (``must``/``should``) and ``subagent_tck``.

The certification runs once per session, for the selected items' rules, when the first rule
item runs (``--collect-only`` certifies nothing); each item then reports its rule: a failure
shows each failure's message, expected and observed values, example and replay command; a rule
that does not apply is skipped with the reason; a baselined failure, and a failing SHOULD rule
(never decisive), is an expected failure. ``--subagent-tck-profile thorough`` also fuzzes the
target, as ``certify --profile thorough`` does (docs/certify.md).

Under pytest-xdist every worker collects the same items, but only one certifies: the first
worker to run a rule item takes a file lock in a directory the controller made for the run and
certifies; the others wait on the lock and read its certificate (a worker that dies releases
the lock, and the next one certifies). Any ``--dist`` mode works, and nothing is certified
twice.

Hypothesis keeps its files under ``.subagent-tck/hypothesis`` in pytest's root directory while
the kit certifies (``HYPOTHESIS_STORAGE_DIRECTORY`` overrides), never ``.hypothesis/`` in the
working directory.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Generator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from subagent_tck.spec import Rule, TckError

    from .core.certificate import Certificate
    from .core.target import Target

TARGET = "--subagent-tck-target"
EDITION = "--subagent-tck-edition"
PROVIDER = "--subagent-tck-provider"
PROFILE = "--subagent-tck-profile"
FUZZ_BUDGET = "--subagent-tck-fuzz-budget"
FUZZ_OUTPUT_DIR = "--subagent-tck-fuzz-output-dir"
JOBS = "--subagent-tck-jobs"
NODE = "subagent-tck"  # the collector's node id; items are subagent-tck::RULE-ID
#: The key of the directory, shared by the xdist workers of one run, in their workerinput.
SHARED = "subagent_tck_shared"
# Imports of the kit happen only once the plugin is active: installed, it stays inert.
_CERTIFICATE = pytest.StashKey[Any]()  # Certificate, or the TckError that prevented it
_TARGET = pytest.StashKey[Any]()  # the target loaded at collection (not under xdist)
_SUITE = pytest.StashKey[Any]()  # the Suite to run (the profile's)
_SHARED_DIR = pytest.StashKey[str]()  # the controller's directory for its workers


def markers() -> dict[str, str]:
    from subagent_tck.spec import Capability, Family

    return {
        "subagent_tck": "an item of the subagent-tck certification (one rule id)",
        **{f.value.lower(): f"rules of family {f.value}" for f in Family},
        **{c.value: f"rules that decide the {c.value} capability" for c in Capability},
        "must": "MUST rules (decisive)",
        "should": "SHOULD rules (reported, never decisive)",
    }


def junit_names(rule: Rule) -> tuple[str, str]:
    """``(classname, name)`` of a rule item's JUnit testcase: the one scheme of
    :func:`~subagent_tck.conformance.report.report_junit.testcase_name`, shared with ``certify
    --format junit`` (the kit, and the rule id)."""
    from .report.report_junit import testcase_name

    return testcase_name(rule.id)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("subagent-tck", "subagent-tck certification")
    group.addoption(TARGET, metavar="TARGET", default=None,
                    help="certify TARGET: reference | python:MODULE:FACTORY | http://... | "
                         "cmd:... (one item per rule)")
    group.addoption(EDITION, metavar="EDITION", default=None,
                    help="edition to certify (default: the target's default)")
    group.addoption(PROVIDER, metavar="NAME", action="append", default=None,
                    help="certify only this provider (repeatable); the rules that bind the "
                         "whole target still run")
    group.addoption("--subagent-tck-seed", metavar="N", type=int, default=0,
                    help="seed of every random choice (default 0)")
    group.addoption("--subagent-tck-baseline", metavar="FILE", default=None,
                    help="TOML file of expected failures")
    from .engine.profiles import DEFAULT, PROFILES, profile_help

    group.addoption(PROFILE, choices=tuple(PROFILES), default=DEFAULT,
                    help=f"{profile_help()} (default {DEFAULT})")
    group.addoption(FUZZ_BUDGET, metavar="S", type=_seconds, default=None,
                    help="seconds of fuzzing with the thorough profile (default 60)")
    group.addoption(FUZZ_OUTPUT_DIR, metavar="DIR", default=None,
                    help="where the thorough profile writes replay files of its findings "
                         "(default .subagent-tck/fuzz)")
    group.addoption(JOBS, metavar="N", type=_jobs, default=None,
                    help="check runs at once, each in a worker process with a target of its "
                         "own (default: the number of cores; 1: one after another); the same "
                         "seed certifies the same whatever N")


def _seconds(text: str) -> float:
    from .cli import seconds  # the kit is imported only when such an option is given

    return seconds(text)


def _jobs(text: str) -> int:
    from .cliruns import jobs  # the kit is imported only when such an option is given

    return jobs(text)


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption(TARGET, default=None))


def _worker(config: pytest.Config) -> dict[str, Any] | None:
    """The xdist workerinput of a worker process, or None (no xdist, or the controller)."""
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    return workerinput


def pytest_configure(config: pytest.Config) -> None:
    """Check the options that need no target (usage errors before anything is collected)."""
    if not _active(config):
        return
    for name, text in markers().items():
        config.addinivalue_line("markers", f"{name}: {text}")
    from subagent_tck.spec import TckError

    from .cliruns import suite_for
    from .engine.runner import Suite
    from .transports.targets import split_spec

    try:
        split_spec(config.getoption(TARGET))
    except TckError as exc:
        raise pytest.UsageError(f"{TARGET}: {exc.message}") from None
    try:
        suite = suite_for(config.getoption(TARGET), config.getoption(PROFILE),
                          fuzz_budget=config.getoption(FUZZ_BUDGET),
                          fuzz_output_dir=config.getoption(FUZZ_OUTPUT_DIR),
                          options=(PROFILE, FUZZ_BUDGET, FUZZ_OUTPUT_DIR))
    except TckError as exc:
        raise pytest.UsageError(exc.message) from None
    config.stash[_SUITE] = suite or Suite.default()
    config.pluginmanager.register(JUnitNamer(config), "subagent-tck-junit")


def pytest_report_header(config: pytest.Config) -> str | None:
    if not _active(config):
        return None
    return f"subagent-tck: certifying {config.getoption(TARGET)}"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand every worker the directory where one of them certifies."""
    config: pytest.Config = node.config
    if not _active(config):
        return
    if _SHARED_DIR not in config.stash:
        shared = tempfile.mkdtemp(prefix="subagent-tck-xdist-")
        config.stash[_SHARED_DIR] = shared
        config.add_cleanup(lambda: shutil.rmtree(shared, ignore_errors=True))
    node.workerinput[SHARED] = config.stash[_SHARED_DIR]


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """Add the rule collector to the session's own collection, so that it is counted,
    selected and shown like any test."""
    report = yield
    if (isinstance(collector, pytest.Session) and _active(collector.config)
            and report.passed):
        report.result.append(RuleCollector.from_parent(collector, name=NODE, nodeid=NODE))
    return report


class RuleFailed(Exception):
    """An item's rule did not hold; the message lists the failures."""


class RuleCollector(pytest.Collector):
    """The parent of the rule items: one per rule of the run's suite, in catalogue order."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        suite = self.config.stash[_SUITE]
        return [RuleItem.from_parent(self, name=rule.id, rule=rule) for rule in suite.rules]


class RuleItem(pytest.Item):
    def __init__(self, *, rule: Rule, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule
        self.add_marker("subagent_tck")
        self.add_marker(rule.family.value.lower())
        self.add_marker(rule.level.value.lower())
        if rule.capability is not None:
            self.add_marker(rule.capability.value)

    def runtest(self) -> None:
        from subagent_tck.spec import Level

        from .core.outcome import Outcome
        from .core.untrusted import for_terminal

        certificate = _certificate(self.session)
        result = certificate.rule(self.rule.id)
        # a reason may carry target text (an UNSUPPORTED_OPERATION message): shown escaped
        reasons = for_terminal(result.reasons())
        if result.outcome in (Outcome.PASS,):
            return
        if result.outcome == Outcome.NOT_APPLICABLE:
            pytest.skip(f"{self.rule.id} not applicable: {reasons}")
        if result.outcome == Outcome.EXPECTED_FAIL:
            pytest.xfail(f"{self.rule.id} expected to fail (baseline): {reasons}")
        from .report.report_failure import failure_lines, traceback_lines

        lines = [f"{result.title} [{result.outcome.value}] {result.level.value}"]
        for failure in result.failures:  # expected, observed, cause, replay, traceback
            lines += failure_lines(failure) + traceback_lines(failure)
        lines = [for_terminal(line) for line in lines]
        if not result.failures and reasons:
            lines.append(f"  {reasons}")
        if result.replay:
            lines.append(f"  replay: {result.replay}")
        if self.rule.level == Level.SHOULD:
            if result.outcome == Outcome.NOT_RUN:
                pytest.skip(f"{self.rule.id} (SHOULD) not run: {reasons}")
            pytest.xfail("SHOULD rule, reported but never decisive:\n" + "\n".join(lines))
        raise RuleFailed("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        from subagent_tck.spec import TckError

        from .core.clierror import printable

        if isinstance(excinfo.value, RuleFailed):
            return printable(str(excinfo.value))
        if isinstance(excinfo.value, TckError):
            return printable(f"error: {excinfo.value.message} (code {excinfo.value.code.value})")
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return NODE, None, f"{self.rule.id} {self.rule.slug}"


def rule_seconds(certificate: Certificate, rule_id: str) -> float:
    """A rule's share of the run's time: each check run's duration split evenly over the rules
    it decided. The shares add up to the time the checks took, so the items' times (JUnit,
    ``--durations``) add up to the certification's, however the work was spread."""
    return sum(run.duration / len(run.rules) for run in certificate.checks
               if rule_id in run.rules)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None],
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A rule item's call lasts its rule's share of the certification, not the time it
    waited for the certificate (the first item would carry the whole run)."""
    report = yield
    if isinstance(item, RuleItem) and report.when == "call":
        cached = item.config.stash.get(_CERTIFICATE, None)
        if cached is not None and not isinstance(cached, Exception):
            report.duration = rule_seconds(cached, item.rule.id)
    return report


class JUnitNamer:
    """Names the rule items' JUnit testcases (:func:`junit_names`) in the process that writes
    the JUnit file (the controller, under xdist). Registered while the plugin is active."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        prefix = NODE + "::"
        xml = _junit(self.config) if report.nodeid.startswith(prefix) else None
        rule = self.config.stash[_SUITE].by_id.get(report.nodeid[len(prefix):]) if xml else None
        if xml is None or rule is None:
            return
        classname, name = junit_names(rule)
        reporter = xml.node_reporter(report)
        reporter.add_attribute("classname", classname)
        reporter.add_attribute("name", name)


def _junit(config: pytest.Config) -> Any:
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - a pytest without the JUnit plugin's key
        return None
    return config.stash.get(xml_key, None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Without xdist, load the target as soon as rule items are selected, so that a bad
    target, edition or provider is a usage error before any test runs. (Under xdist the one
    worker that certifies loads it: a ``cmd:`` target starts one adapter, not one per worker;
    a mistake then fails the rule items with its message.)"""
    config = session.config
    if (not _active(config) or _worker(config) is not None or config.option.collectonly
            or not any(isinstance(i, RuleItem) for i in session.items)):
        return
    from subagent_tck.spec import ErrorCode, TckError

    from .engine.runner import resolve_edition, select_providers
    from .transports.targets import load_target

    try:
        target = load_target(config.getoption(TARGET))
    except TckError as exc:
        raise pytest.UsageError(f"{TARGET}: {exc.message}") from None
    config.stash[_TARGET] = _Closing(target)
    config.add_cleanup(config.stash[_TARGET].close)
    try:
        info = target.info()
        resolve_edition(info, config.getoption(EDITION))
        select_providers(info, config.getoption(PROVIDER) or ())
    except TckError as exc:
        if exc.code == ErrorCode.USAGE:
            raise pytest.UsageError(exc.message.replace("--provider", PROVIDER)
                                    .replace("--edition", EDITION)) from None
        raise pytest.UsageError(f"{TARGET}: the target is unreachable: {exc.message}") from None
    except Exception as exc:
        raise pytest.UsageError(f"{TARGET}: the target's info() failed: {exc}") from None


class _Closing:
    """A target closed once, by whichever comes first: the end of certification or of the
    session."""

    def __init__(self, target: Target) -> None:
        self.target: Target | None = target

    def close(self) -> None:
        target, self.target = self.target, None
        if target is not None:
            target.close()


def _certificate(session: pytest.Session) -> Certificate:
    """The session's certificate: certified once (once per run under xdist)."""
    from subagent_tck.spec import TckError

    config = session.config
    cached = config.stash.get(_CERTIFICATE, None)
    if cached is None:
        worker = _worker(config)
        shared = worker.get(SHARED) if worker is not None else None
        cached = (_once(Path(shared), lambda: _certify(session)) if shared
                  else _certify(session))
        config.stash[_CERTIFICATE] = cached
    if isinstance(cached, TckError):
        raise cached
    certificate: Certificate = cached
    return certificate


def _once(shared: Path, compute: Callable[[], Certificate | TckError]) -> Certificate | TckError:
    """``compute()`` in the first worker to get here; the others wait and read its result."""
    from filelock import FileLock

    from subagent_tck.spec import ErrorCode, TckError

    result = shared / "certificate.pickle"
    with FileLock(str(shared / "certify.lock")):
        if result.exists():
            kind, *value = pickle.loads(result.read_bytes())
            return value[0] if kind == "certificate" else TckError(ErrorCode(value[0]),
                                                                    value[1])
        outcome = compute()
        data = (("error", outcome.code.value, outcome.message) if isinstance(outcome, TckError)
                else ("certificate", outcome))
        partial = result.with_suffix(".part")
        partial.write_bytes(pickle.dumps(data))
        os.replace(partial, result)
        return outcome


def _certify(session: pytest.Session) -> Certificate | TckError:
    """Load the target (unless collection did), certify the selected items' rules, close it."""
    from subagent_tck.spec import TckError

    from .cliruns import default_jobs, recipe_for
    from .core.baseline import load_baseline
    from .engine.runner import RunConfig, certify
    from .transports.targets import load_target

    config = session.config
    suite = config.stash[_SUITE]
    chosen = {i.rule.id for i in session.items if isinstance(i, RuleItem)}
    every = {r.id for r in suite.rules}
    holder: _Closing | None = config.stash.get(_TARGET, None)
    try:
        if holder is None or holder.target is None:
            holder = _Closing(load_target(config.getoption(TARGET)))
        baseline_path = config.getoption("--subagent-tck-baseline")
        run = RunConfig(
            target_spec=config.getoption(TARGET),
            edition=config.getoption(EDITION),
            rules=() if chosen >= every else tuple(sorted(chosen)),
            providers=tuple(config.getoption(PROVIDER) or ()),
            profile=config.getoption(PROFILE),
            seed=config.getoption("--subagent-tck-seed"),
            baseline=load_baseline(baseline_path) if baseline_path else None,
            jobs=config.getoption(JOBS) or default_jobs(),
        )
        recipe = recipe_for(run.target_spec, run.profile,
                            fuzz_budget=config.getoption(FUZZ_BUDGET),
                            fuzz_output_dir=config.getoption(FUZZ_OUTPUT_DIR),
                            options=(PROFILE, FUZZ_BUDGET, FUZZ_OUTPUT_DIR))  # as configured
        assert holder.target is not None
        with hypothesis_home(config.rootpath):
            return certify(holder.target, run, suite=suite, recipe=recipe)
    except TckError as exc:
        return exc
    finally:
        if holder is not None:
            holder.close()


@contextmanager
def hypothesis_home(root: Path) -> Generator[None, None, None]:
    """Hypothesis' files under ``ROOT/.subagent-tck/hypothesis`` for the duration (unless
    ``HYPOTHESIS_STORAGE_DIRECTORY`` names a place), then back where they were: the user's own
    Hypothesis tests in the same session keep theirs."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

    previous = storage_directory(intent_to_write=False).home_directory
    set_hypothesis_home_dir(root / ".subagent-tck" / "hypothesis")
    try:
        yield
    finally:
        set_hypothesis_home_dir(previous)
