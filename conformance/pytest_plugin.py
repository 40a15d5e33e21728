"""The pytest plugin: ``pytest --subagent-tck-target TARGET`` runs one item per rule id.

Inert unless ``--subagent-tck-target`` is given. Each item is named after its rule id (select
with ``-k TF-01``) and marked with its family (``tf`` ...), its capability (``toolFilter`` ...),
its level (``must``/``should``) and ``subagent_tck``. The runner runs once per session, for the
selected items' rules, and each item reports its rule: a failure shows the failures' messages
(and a fuzz finding's replay command); a rule that does not apply is skipped with the reason; a
baselined failure, and a failing SHOULD rule (never decisive), is an expected failure.
``--subagent-tck-profile thorough`` also fuzzes the target, as ``certify --profile thorough``
does (docs/certify.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from subagent_tck.spec import Rule

    from .certificate import Certificate

TARGET = "--subagent-tck-target"
PROFILE = "--subagent-tck-profile"
FUZZ_BUDGET = "--subagent-tck-fuzz-budget"
FUZZ_OUTPUT_DIR = "--subagent-tck-fuzz-output-dir"
# Imports of the kit happen only once the plugin is active: installed, it stays inert.
_CERTIFICATE = pytest.StashKey[Any]()  # Certificate, or the TckError that prevented it
_TARGET = pytest.StashKey[Any]()
_SUITE = pytest.StashKey[Any]()  # the Suite to run (the profile's)


def markers() -> dict[str, str]:
    from subagent_tck.spec import Capability, Family

    return {
        "subagent_tck": "an item of the subagent-tck certification (one rule id)",
        **{f.value.lower(): f"rules of family {f.value}" for f in Family},
        **{c.value: f"rules that decide the {c.value} capability" for c in Capability},
        "must": "MUST rules (decisive)",
        "should": "SHOULD rules (reported, never decisive)",
    }


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("subagent-tck", "subagent-tck certification")
    group.addoption(TARGET, metavar="TARGET", default=None,
                    help="certify TARGET: reference | python:MODULE:FACTORY (one item per rule)")
    group.addoption("--subagent-tck-edition", metavar="EDITION", default=None,
                    help="edition to certify (default: the target's default)")
    group.addoption("--subagent-tck-seed", metavar="N", type=int, default=0,
                    help="seed of every random choice (default 0)")
    group.addoption("--subagent-tck-baseline", metavar="FILE", default=None,
                    help="TOML file of expected failures")
    group.addoption(PROFILE, choices=("ci", "thorough"), default="ci",
                    help="examples per property-based check, 10 (ci) or 200 (thorough); "
                         "thorough also fuzzes the target (default ci)")
    group.addoption(FUZZ_BUDGET, metavar="S", type=_seconds, default=None,
                    help="seconds of fuzzing with the thorough profile (default 60)")
    group.addoption(FUZZ_OUTPUT_DIR, metavar="DIR", default=None,
                    help="where the thorough profile writes replay files of its findings "
                         "(default .subagent-tck/fuzz)")


def _seconds(text: str) -> float:
    from .cli import seconds  # the kit is imported only when such an option is given

    return seconds(text)


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption(TARGET, default=None))


def pytest_configure(config: pytest.Config) -> None:
    if _active(config):
        for name, text in markers().items():
            config.addinivalue_line("markers", f"{name}: {text}")


def pytest_report_header(config: pytest.Config) -> str | None:
    if not _active(config):
        return None
    return f"subagent-tck: certifying {config.getoption(TARGET)}"


class RuleFailed(Exception):
    """An item's rule did not hold; the message lists the failures."""


class RuleCollector(pytest.Collector):
    """The parent of the rule items (they are made in ``pytest_collection_modifyitems``)."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        return []


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

        from .outcome import Outcome

        certificate = _certificate(self.session)
        result = certificate.rule(self.rule.id)
        reasons = result.reasons()
        if result.outcome in (Outcome.PASS,):
            return
        if result.outcome == Outcome.NOT_APPLICABLE:
            pytest.skip(f"{self.rule.id} not applicable: {reasons}")
        if result.outcome == Outcome.EXPECTED_FAIL:
            pytest.xfail(f"{self.rule.id} expected to fail (baseline): {reasons}")
        from .report_text import failure_lines, traceback_lines
        from .untrusted import for_terminal

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

        if isinstance(excinfo.value, RuleFailed):
            return str(excinfo.value)
        if isinstance(excinfo.value, TckError):
            return f"error: {excinfo.value.message}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "subagent-tck", None, f"{self.rule.id} {self.rule.slug}"


def _certificate(session: pytest.Session) -> Certificate:
    """Run the certification once per session, for the rules of the selected items."""
    from subagent_tck.spec import TckError

    config = session.config
    cached = config.stash.get(_CERTIFICATE, None)
    if cached is None:
        from .baseline import load_baseline
        from .runner import RunConfig, certify

        suite = config.stash[_SUITE]
        chosen = {i.rule.id for i in session.items if isinstance(i, RuleItem)}
        every = {r.id for r in suite.rules}
        try:
            baseline_path = config.getoption("--subagent-tck-baseline")
            run = RunConfig(
                target_spec=config.getoption(TARGET),
                edition=config.getoption("--subagent-tck-edition"),
                rules=() if chosen >= every else tuple(sorted(chosen)),
                profile=config.getoption(PROFILE),
                seed=config.getoption("--subagent-tck-seed"),
                baseline=load_baseline(baseline_path) if baseline_path else None,
            )
            cached = certify(config.stash[_TARGET], run, suite=suite)
        except TckError as exc:
            cached = exc
        config.stash[_CERTIFICATE] = cached
    if isinstance(cached, TckError):
        raise cached
    certificate: Certificate = cached
    return certificate


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Add one item per rule before ``-k``/``-m`` deselection sees the items."""
    if not _active(config):
        return
    from subagent_tck.spec import ErrorCode, TckError

    from .cli import suite_for
    from .runner import Suite, resolve_edition
    from .targets import load_target

    try:
        suite = suite_for(config.getoption(TARGET), config.getoption(PROFILE),
                          fuzz_budget=config.getoption(FUZZ_BUDGET),
                          fuzz_output_dir=config.getoption(FUZZ_OUTPUT_DIR),
                          options=(PROFILE, FUZZ_BUDGET, FUZZ_OUTPUT_DIR))
    except TckError as exc:
        raise pytest.UsageError(exc.message) from None
    config.stash[_SUITE] = suite or Suite.default()
    try:
        target = load_target(config.getoption(TARGET))
    except TckError as exc:
        raise pytest.UsageError(f"{TARGET}: {exc.message}") from None
    config.add_cleanup(target.close)
    config.stash[_TARGET] = target
    try:
        resolve_edition(target.info(), config.getoption("--subagent-tck-edition"))
    except TckError as exc:
        if exc.code == ErrorCode.USAGE:
            raise pytest.UsageError(f"--subagent-tck-edition: {exc.message}") from None
        raise pytest.UsageError(f"{TARGET}: the target is unreachable: {exc.message}") from None
    except Exception as exc:
        raise pytest.UsageError(f"{TARGET}: the target's info() failed: {exc}") from None
    parent = RuleCollector.from_parent(session, name="subagent-tck", nodeid="subagent-tck")
    rules = Suite.default().rules
    items[:0] = [RuleItem.from_parent(parent, name=rule.id, rule=rule) for rule in rules]
