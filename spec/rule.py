"""The shape of one rule of the catalogue, and of its examples."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from .vocabulary import Capability, Component, Edition, Family, Level

#: Which oracle judges an example (see :mod:`subagent_tck.spec.judge`); ``None``: narrative.
OracleKind = Literal[
    "view", "wire", "restriction", "depth", "depth-json", "start-depth", "start", "persona",
    "sections", "spawn-policy", "offered",
]


class Source(BaseModel):
    """Where a rule comes from: a design note and its section, or the known practice that
    docs/rules.md records."""

    model_config = ConfigDict(frozen=True)

    document: str = Field(
        description="the source document's key (spec/render.py names it for readers)")
    section: str


class Example(BaseModel):
    """A worked case: a state, an observation, and whether that observation obeys the rule.

    Examples with an ``oracle`` are executable: :func:`subagent_tck.spec.judge.judge` decides
    from the oracle whether ``observed`` conforms, and the catalogue's lint test requires that
    decision to equal ``holds``. Narrative examples (``oracle`` None) describe behaviour over
    time that no single state function captures.
    """

    model_config = ConfigDict(frozen=True)

    title: str
    oracle: OracleKind | None = None
    given: dict[str, Any] = Field(default_factory=dict)
    observed: Any = None
    holds: bool
    note: str = ""


class Rule(BaseModel):
    """One row of docs/rules.md: fixed id, level, family, what it binds, and its examples."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^(TF|PE|DE|CA|FR|EN|ST|SP|MO)-\d\d$")
    slug: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    family: Family
    level: Level
    capability: Capability | None = Field(
        default=None, description="the capability whose certification this rule decides"
    )
    component: Component | None = Field(
        default=None, description="the optional component this rule applies to"
    )
    edition: Edition | None = Field(default=None, description="None: applies to both editions")
    statement: str
    rationale: str
    source: Source
    examples: tuple[Example, ...] = ()
    #: True when the rule is a function of state: its examples must be executable, and a MUST
    #: such rule needs at least one example that holds and one that does not.
    stateful: bool = False

    @property
    def title(self) -> str:
        return f"{self.id} {self.slug}"

    @property
    def anchor(self) -> str:
        return self.id.lower()


class RuleFactory(Protocol):
    """Makes one family's rules (:func:`family_rules`)."""

    def __call__(self, number: int, slug: str, statement: str, rationale: str,
                 examples: tuple[Example, ...] = (), **overrides: Any) -> Rule: ...


def family_rules(family: Family, source: Source, *, level: Level = Level.MUST,
                 capability: Capability | None = None, component: Component | None = None,
                 stateful: bool = False) -> RuleFactory:
    """The one way a catalogue module makes its family's rules: the id ``FAMILY-NN`` from the
    rule's number, and the family's defaults (source, level, capability, component, stateful),
    each of which a rule may override by keyword."""
    defaults: dict[str, Any] = {"level": level, "capability": capability,
                                "component": component, "source": source,
                                "stateful": stateful}

    def make(number: int, slug: str, statement: str, rationale: str,
             examples: tuple[Example, ...] = (), **overrides: Any) -> Rule:
        return Rule(id=f"{family.value}-{number:02d}", slug=slug, family=family,
                    statement=statement, rationale=rationale, examples=examples,
                    **{**defaults, **overrides})

    return make
