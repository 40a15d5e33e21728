"""Checks: plain functions registered under a stable name, each citing the rule ids it decides.

::

    @check("TF-01", "TF-02", name="tool-filter-admission")
    def admission(ctx: CheckContext) -> None:
        dep = ctx.deploy(tools=["a", "b"])
        ...
        ctx.expect("TF-01", observed == expected, "allow minus deny", expected, observed)

A check runs once per provider it applies to (``per_provider=True``, the default: ``ctx.provider``
is set) or once for the target (``per_provider=False``). It declares the partitions of its
rules' domains (``partitions=``, :mod:`.partitions`) and records each one it draws a case of.
Misuse is refused when the check is defined: an unknown rule id, a duplicate name, a rule the
check does not cite, a partition of a rule it does not cite (docs/certify.md#partitions).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn, TypeVar

from subagent_tck.spec import RULES_BY_ID, Edition, ErrorCode, TckError

from ..core import fingerprint
from ..core.certificate import PORTABLE_VARIABLE_PATTERN
from ..core.dialect import DEFAULT_CHANNELS, PromptFrame, RestrictionChannel, ToolNameFolding
from ..core.drawn import Drawing, surer
from ..core.exitcode import TARGET_CODES
from ..core.gateway import Gateway
from ..core.jsonsafe import plain
from ..core.outcome import Failure
from ..core.protocol import DeploymentConfig, ProviderInfo, ToolSpec
from ..core.target import Deployment, Target
from ..core.unsupported import Unsupported
from .faults import deploy_guarded
from .for_all import SHRINK_RUNS as SHRINK_RUNS
from .for_all import Abort as _Abort
from .for_all import Inexpressible as Inexpressible
from .for_all import run_property
from .name_folding import folded, screened
from .partitions import Partition, cover_strategy, of_rule, problems, top_up_strategy

CheckFunction = Callable[["CheckContext"], None]
T = TypeVar("T")


class CheckDefinitionError(TckError):
    """A check was defined wrongly; the message names the fix."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.USAGE, message)


@dataclass(frozen=True)
class Check:
    name: str
    rules: tuple[str, ...]
    function: CheckFunction
    per_provider: bool = True
    #: Restrict the check to one edition (EN rules) or None for both.
    edition: Edition | None = None
    doc: str = ""
    #: A supplementary check only adds failures and errors (the fuzz campaign of ``certify
    #: --profile thorough``): what it did not find decides nothing, so it never turns a
    #: not-applicable or a failing cell into a pass, and no cell exists for it alone.
    supplementary: bool = False
    #: Seconds this check may take when that is more than the run's ``--timeout``.
    timeout: float | None = None
    #: The partitions of its rules' domains it draws a case of at every seed (:mod:`.partitions`).
    partitions: tuple[Partition, ...] = ()
    #: Independent parts the check runs as (the fuzz campaign's shards), each a check run of
    #: its own told its part by ``CheckContext.shard``: a fixed number, never the run's
    #: ``--jobs``, so that a seed finds the same whatever runs at once (docs/certify.md#jobs).
    shards: int = 1


REGISTRY: dict[str, Check] = {}


def check(
    *rules: str, name: str | None = None, per_provider: bool = True, edition: Edition | None = None,
    partitions: Sequence[Partition] = (),
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check deciding ``rules`` that draws ``partitions`` of their domains. Raises
    :class:`CheckDefinitionError` on misuse."""
    if not rules:
        raise CheckDefinitionError("a check must cite at least one rule id, e.g. @check('TF-01')")
    unknown = [r for r in rules if r not in RULES_BY_ID]
    if unknown:
        raise CheckDefinitionError(
            f"@check cites unknown rule id(s) {', '.join(unknown)}: use ids of docs/rules.md "
            "(`subagent-tck rules` lists them)"
        )
    wrong = problems(partitions, rules)
    if wrong:
        raise CheckDefinitionError(f"@check({', '.join(repr(r) for r in rules)}): {wrong[0]}")

    def register(function: CheckFunction) -> CheckFunction:
        check_name = name or function.__name__.replace("_", "-")
        known = REGISTRY.get(check_name)
        if known is not None and known.function is not function and not _same_place(
                known.function, function):  # the same place again: its module was re-imported
            raise CheckDefinitionError(f"a check named {check_name!r} is already registered: "
                                       "pass name='...' to give this one a distinct stable name")
        REGISTRY[check_name] = Check(check_name, tuple(rules), function, per_provider, edition,
                                     (function.__doc__ or ""), partitions=tuple(partitions))
        return function

    return register


def _same_place(one: CheckFunction, other: CheckFunction) -> bool:
    """Whether two functions are one definition: same module and qualified name (a module
    imported again, by ``importlib.reload`` or a test runner that restores ``sys.modules``,
    registers its checks again; that replaces them rather than clashing)."""
    return (getattr(one, "__module__", None), getattr(one, "__qualname__", None)) == (
        getattr(other, "__module__", None), getattr(other, "__qualname__", None))


#: Template variable names every runtime the kit has met accepts. The rules fix no grammar for
#: variable names (docs/rules.md#PE-05 asks the child persona for the deployment persona's
#: semantics, whatever they are); the checks draw names of the oracle's wider grammar, and a
#: target may refuse a deployment naming one outside this set (DSH: docs/dsh.md).
PORTABLE_VARIABLE = re.compile(PORTABLE_VARIABLE_PATTERN)


@dataclass
class CheckContext:
    """What a check works with: the target, a fresh deployment per use, and the verdicts."""

    #: What a strategy may read of its check's context, in a draw cache key (draw_cache.py):
    draw_fields: ClassVar[tuple[str, ...]] = ("edition", "provider", "providers", "seed",
        "max_examples", "portable_variables", "shard", "channels", "frame", "folding",
        "guidance")
    target: Target
    check: Check
    edition: Edition
    provider: ProviderInfo | None
    providers: list[ProviderInfo]
    seed: int
    max_examples: int
    failures: list[Failure] = field(default_factory=list)
    #: Rules for which the check actually verified something (a rule with none is not-run).
    exercised: set[str] = field(default_factory=set)
    #: Rules the check found not applicable here (with the reason).
    not_applicable: dict[str, str] = field(default_factory=dict)
    #: One line on what the check did, kept in the certificate's check runs.
    note: str | None = None
    #: Why the check stopped at an operation the target cannot express (UNSUPPORTED_OPERATION,
    #: docs/driver-api.md#unsupported-operations), or None: its rules not failed are then
    #: not applicable with this reason.
    unsupported: str | None = None
    #: The target refused a deployment whose variable names are outside
    #: :data:`PORTABLE_VARIABLE` before the checks ran (:mod:`.variable_names`): drawn cases
    #: name variables of that set only, so that they are about the rules, not the grammar.
    portable_variables: bool = False
    #: The entry points through which the target puts a restriction on a scope, as it
    #: declared them (docs/driver-api.md#dialect): the TF checks build their cases through them.
    channels: tuple[RestrictionChannel, ...] = DEFAULT_CHANNELS
    #: The runtime's own text around the composed system text, and how it folds tool names
    #: together (docs/driver-api.md#dialect).
    frame: PromptFrame | None = None
    folding: ToolNameFolding | None = None
    #: How the runtime carries a section that guides one tool, in the adapter's words
    #: (``TargetInfo.toolGuidance``); None: it declares no guidance of its own.
    guidance: str | None = None
    #: How the runtime gives a child tools of its own from its preset, in the adapter's words
    #: (``TargetInfo.presetTools``); None: a preset carries no tools.
    preset_tools: str | None = None
    #: The entry points this check built its cases through, in the order first used: the
    #: check run's note names them, and the certificate's dialect section.
    entry_points: list[str] = field(default_factory=list)
    #: How many fixed cases the check has put through a channel so far: each goes through the
    #: next channel that can carry it (``checks/_channels.py``), so every one gets cases.
    placed: int = 0
    #: The partitions of the check's rules it drew a case of, and how surely
    #: (docs/certify.md#partitions).
    drawn: dict[tuple[str, str], Drawing] = field(default_factory=dict)
    #: Which of the check's ``shards`` parts this run is (0-based).
    shard: int = 0
    #: Markers handed out so far in this check run (``checks/_starts.py`` ``marker``).
    markers: int = 0
    #: The partitions that do not exist in this run (:meth:`inapplicable`).
    inapplicable_partitions: set[tuple[str, str]] = field(default_factory=set)
    #: The parts the target could not set up, per ``(rule, partition)`` (partition ``""``: a
    #: part that names none), with the reason (:meth:`expressible`).
    inexpressible: dict[tuple[str, str], str] = field(default_factory=dict)
    _open: list[Deployment] = field(default_factory=list)
    gateway: Gateway = field(default_factory=Gateway)
    #: How a case running now was reached: a hand-written one, cover's, a property's draw.
    _drawing: Drawing = Drawing.EXAMPLE
    #: The state a property drew for the case now running (a one-item tuple), or empty: a
    #: failure recorded inside is of a drawn case, its values named by their role
    #: (docs/baseline.md#the-fingerprint).
    drawn_state: tuple[Any, ...] = ()

    # --- deployments ------------------------------------------------------------------

    def deploy(
        self, config: DeploymentConfig | None = None, *, tools: Sequence[str] = (), **fields: Any
    ) -> Deployment:
        """A fresh deployment with a fresh gateway (``self.gateway``); closed after the check.

        ``tools`` is a shorthand for global tools by name; other keywords are
        :class:`DeploymentConfig` fields. The edition defaults to the run's edition.
        """
        if config is None:
            fields.setdefault("edition", self.edition)
            if tools:
                fields["tools"] = [ToolSpec(name=t, description=f"tool {t}") for t in tools]
            config = DeploymentConfig(**fields)
        names = screened(config, self.folding, self.check.rules)  # name_folding.py's doc
        self.gateway = Gateway()
        try:
            deployment = folded(deploy_guarded(lambda: self.target.deploy(config, self.gateway)),
                                names)
        except TckError as exc:
            unportable = [n for n in config.variables if not PORTABLE_VARIABLE.fullmatch(n)]
            if exc.code is ErrorCode.INVALID_TEMPLATE and unportable:
                raise Inexpressible(f"the target refused the variable names {unportable}: "
                                    f"{exc.message}") from exc
            raise
        self._open.append(deployment)
        return deployment

    def close(self) -> None:
        while self._open:
            deployment = self._open.pop()
            # Closing is best effort: the verdict is already made.
            with contextlib.suppress(Exception):
                deployment.close()

    # --- verdicts ---------------------------------------------------------------------

    def _cited(self, rule: str) -> None:
        if rule not in self.check.rules:
            raise CheckDefinitionError(
                f"check {self.check.name!r} reports on {rule}, which it does not cite: add it "
                f"to @check({', '.join(repr(r) for r in self.check.rules)}, ...)"
            )

    def expect(
        self,
        rule: str,
        condition: bool,
        message: str,
        expected: Any = None,
        observed: Any = None,
        *,
        example: str | None = None,
        key: str | None = None,
    ) -> bool:
        """Record that ``rule`` was exercised; a false ``condition`` is a failure. ``key``
        names the assertion in a baseline instead of the message (docs/baseline.md)."""
        self._cited(rule)
        self.exercised.add(rule)
        if not condition:
            self.fail(rule, message, expected, observed, example=example, key=key)
        return condition

    def fail(
        self,
        rule: str,
        message: str,
        expected: Any = None,
        observed: Any = None,
        *,
        example: str | None = None,
        error: bool = False,
        traceback: str | None = None,
        provider: str | None = None,
        replay: str | None = None,
        key: str | None = None,
        also: Sequence[str] = (),
    ) -> None:
        """Record a failure of ``rule`` (a :class:`Failure` is whole when made: never changed
        after, docs/architecture.md#one-home-per-concept). ``provider`` overrides the
        context's provider (a campaign that found the failure elsewhere). ``key`` names the
        assertion in a baseline instead of ``message``: the kit's words for it, without text
        the target supplied (docs/baseline.md#the-fingerprint). ``also``: the other rules the
        same observation belongs to (the campaign's finding)."""
        self._cited(rule)
        self.exercised.add(rule)
        expected, observed = plain(expected), plain(observed)
        case: fingerprint.Case = ("campaign" if self.check.supplementary
                                  else "drawn" if self.drawn_state else "fixed")
        self.failures.append(
            Failure(
                rule=rule,
                check=self.check.name,
                title=RULES_BY_ID[rule].title,
                message=message,
                expected=expected,
                observed=observed,
                provider=provider or (self.provider.name if self.provider else None),
                error=error,
                transcript=self.gateway.transcript(),
                example=example,
                traceback=traceback,
                replay=replay,
                also=list(also),
                assertion=fingerprint.make(
                    rule, self.check.name, message, expected, observed, error=error, case=case,
                    state=self.drawn_state[0] if self.drawn_state else None, key=key,
                    channels=self.entry_points),
            )
        )

    def drew(self, rule: str, name: str) -> None:
        """Record that the case running now is inside the partition ``name`` of ``rule``."""
        self._declared(rule, name, "drew")
        self.drawn[rule, name] = surer(self.drawn.get((rule, name)), self._drawing)

    def inapplicable(self, rule: str, *names: str) -> None:
        """Record that the partitions ``names`` of ``rule`` do not exist in this run: its
        edition or the provider's capabilities leave them out (not drawn, and not asked)."""
        for name in names:
            self._declared(rule, name, "calls inapplicable")
            self.inapplicable_partitions.add((rule, name))

    @contextmanager
    def expressible(self, rule: str, *names: str) -> Iterator[None]:
        """Run one part of the check, reaching the partitions ``names`` of ``rule``, that a
        target may be unable to set up: an operation it cannot express inside (an optional
        one: docs/driver-api.md#unsupported-operations) ends this part alone, its partitions
        recorded as inexpressible with the reason, and the check goes on with its other parts.
        A rule some part judged is decided by those parts; a rule no part reached is not
        applicable (docs/certify.md#inexpressible-partitions)."""
        for name in names:
            self._declared(rule, name, "marks expressible")
        undo = self._judged_so_far()
        try:
            yield
        except Unsupported as exc:
            if exc.settled:  # a property's cases before it ran whole: they stand
                self.close()
            else:
                undo()
            for name in names or ("",):
                self.inexpressible.setdefault((rule, name), exc.reason)

    def _judged_so_far(self) -> Callable[[], None]:
        """A function that takes back what a part judged and drew after this call, once an
        operation the target cannot express stopped it: a pass seen before is no verdict (the
        rest of the part's scenario did not run), a failure found before stays one."""
        exercised, drawn = set(self.exercised), dict(self.drawn)
        gateway, waiting = self.gateway, frozenset(self.gateway.unconsumed())
        made = len(getattr(self, "gateways", ()))  # a runner's context keeps every one

        def undo() -> None:
            self.close()
            self.exercised, self.drawn = exercised, drawn
            # the replies the part scripted were never asked for: no void scenario
            gateway.excuse(waiting)
            for later in {*getattr(self, "gateways", ())[made:], self.gateway} - {gateway}:
                later.excuse()
        return undo

    def _declared(self, rule: str, name: str, did: str) -> None:
        declared = [p.name for p in self.check.partitions if p.rule == rule]
        if name not in declared:
            raise CheckDefinitionError(
                f"check {self.check.name!r} {did} partition {rule} {name!r}, which it does not "
                f"declare: declared are {declared or 'none'} (@check(..., partitions=...))")

    def cover(self, rule: str, body: Callable[[Any], None],
              names: Sequence[str] | None = None, max_examples: int | None = None) -> None:
        """Run ``body`` on values of every partition of ``rule`` that has cases (of ``names``
        only, when given), at every seed: drawn over the partitions first, then inside one,
        with the profile's budget (or ``max_examples``, where smaller: a check whose every case
        is a deployment and a run of a real runtime); then one case of its own for each
        partition the budget missed (unless the rule already failed: its verdict is made). A
        value the target cannot set up (:meth:`expressible`) leaves its partition inexpressible
        unless another value of it is set up."""
        parts = of_rule(self.check.partitions, rule, names)
        if not parts:
            raise CheckDefinitionError(f"check {self.check.name!r} covers {rule}, but declares "
                                       "no partition of it with cases=")

        def run(pair: tuple[Partition, Any]) -> None:
            part, value = pair
            if part.member is not None and not part.member(value):
                raise AssertionError(f"check bug: partition {rule} {part.name!r} drew {value!r}, "
                                     "which is not inside it")
            outer, self._drawing = self._drawing, Drawing.COVER
            undo = self._judged_so_far()
            try:
                body(value)
            except _Abort:  # a failure ended the case: it was drawn all the same
                self.drew(rule, part.name)
                raise
            except Unsupported as exc:  # a value the target cannot set up: drawn around
                undo()
                self.inexpressible.setdefault(part.key, exc.reason)
            else:
                # a body that found the partition absent on this target says so (inapplicable)
                if part.key not in self.inapplicable_partitions:
                    self.drew(rule, part.name)
            finally:
                self._drawing = outer

        budget = self.max_examples if max_examples is None else min(max_examples,
                                                                    self.max_examples)
        self.for_all(cover_strategy(parts, self), run, budget)
        for part in parts:
            if part.key not in self.drawn and part.key not in self.inapplicable_partitions \
                    and not any(f.rule == rule for f in self.failures):
                self.for_all(top_up_strategy(part, self), run, max_examples=1)

    def abort(self) -> NoReturn:
        """Stop this check here (after a failure that makes later steps meaningless)."""
        raise _Abort()

    def skip(self, rule: str, reason: str) -> None:
        """Declare ``rule`` not applicable in this run (for example a capability absent)."""
        self._cited(rule)
        self.not_applicable[rule] = reason

    def expect_error(
        self,
        rule: str,
        code: ErrorCode | set[ErrorCode] | frozenset[ErrorCode],
        action: Callable[[], Any],
        message: str,
    ) -> TckError | None:
        """Run ``action``; it must be refused with ``code`` (or any of a set of codes)."""
        codes = {code} if isinstance(code, ErrorCode) else set(code)
        wanted = " or ".join(sorted(c.value for c in codes))
        try:
            result = action()
        except TckError as exc:
            if exc.code in TARGET_FAULTS and exc.code not in codes:
                self.target_fault(rule, message, exc)
            self.expect(
                rule,
                exc.code in codes,
                f"{message}: refused with {exc.code.value}, expected {wanted}",
                wanted,
                exc.to_json(),
            )
            return exc
        self.fail(rule, f"{message}: accepted, expected a refusal with {wanted}", wanted,
                  plain(result))
        return None

    def for_all(self, strategy: Any, body: Callable[[Any], None],
                max_examples: int | None = None) -> None:
        """Run ``body`` on states drawn by the Hypothesis ``strategy`` (seeded by the run's
        seed, ``max_examples`` from the profile unless given). The first failing state is
        shrunk and its failures, with the shrunk state as ``example``, are the ones recorded.
        A partition its cases reach counts as drawn by chance (:meth:`cover` draws them
        surely)."""
        outer = self._drawing
        if outer is Drawing.EXAMPLE:
            self._drawing = Drawing.CHANCE
        try:
            run_property(self, strategy, body, max_examples or self.max_examples)
        finally:
            self._drawing = outer

    def target_fault(self, rule: str, what: str, exc: TckError) -> NoReturn:
        """Record that the connection or the protocol broke while doing ``what``: an error
        of the target (exit code 3), never a verdict on ``rule``; the check stops here."""
        self.fail(rule, f"{what}: {fault_text(exc)}", observed=exc.to_json(), error=True,
                  key=what)
        raise _Abort() from exc

    @contextmanager
    def step(self, rule: str, what: str) -> Iterator[None]:
        """Run a step whose unexpected refusal is a failure of ``rule`` (not a crash); a broken
        connection or protocol is an error of the target instead."""
        try:
            yield
        except TckError as exc:
            if exc.code in TARGET_FAULTS:
                self.target_fault(rule, what, exc)
            self.fail(rule, f"{what} was refused: {exc.message}", "accepted", exc.to_json(),
                      key=f"{what} was refused")
            raise _Abort() from exc


#: Codes that mean the connection or the protocol broke: errors of the target, not refusals.
TARGET_FAULTS = TARGET_CODES
_FAULT_WORDS = {
    ErrorCode.TARGET_UNREACHABLE: "the connection to the target failed",
    ErrorCode.PROTOCOL_ERROR: "the target answered off-protocol",
    ErrorCode.TIMEOUT: "the target did not answer in time",
}


def fault_text(exc: TckError) -> str:
    """What a transport or protocol failure says: who failed, then the detail."""
    words = _FAULT_WORDS.get(exc.code, "the target failed")
    return f"{words} ({exc.code.value}: {exc.message}): an error of the target, not a verdict"
