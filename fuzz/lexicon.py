"""The words one fuzzed deployment is written in: the tool names its presets and sections mention,
its variables, presets, sections, personas, the prompt, and the provider no target ships.

The fuzzer used to write every deployment with the same words (``read``, ``{{project}}``, a preset
``reviewer``...), so a target right only for those words passed every campaign. A
:class:`Lexicon` is drawn with each deployment (:func:`pick_lexicon`); what stays fixed is the
*role* of each word, which is what the rules give a meaning to:

- five tool names: ``read``, ``write``, ``search``, a case variant of ``read`` (TF-01: names are
  case-sensitive) and the tool a section guides (TF-16), plus ``ghost``, never registered (TF-08);
- three variables (docs/rules.md#PE-05): one with a value, one whose value is the empty string,
  one never defined; a persona spells one of them ``{{ name }}``;
- nine presets by role (docs/rules.md#EN-01): an allow list, an empty allow list, an empty persona
  with an output schema, a deny list, an undefined variable, a deny list naming ``ghost``, nothing,
  a spaced placeholder of the empty variable, and a name with a capital letter; plus a name that
  is no preset;
- two sections, the second guiding a tool; a prompt; a provider name;
- two presets of the newer controls (docs/rules.md#SP-01, docs/rules.md#MO-01): a *captain*
  that composes everything at once (a persona, a deny filter, a spawn policy that refuses the
  first preset, a model) and a *mini* with a model alone; and three model names: the
  deployment's, the captain's and the mini's (a start's own model is drawn among them). The new
  fields reach the target only where a provider advertises their capability
  (:meth:`Lexicon.preset_specs`).

Variable names stay in ``[a-z][a-z0-9_]*``: the deterministic checks draw the whole grammar of
names and find a target that refuses some (docs/certify.md#generated-cases); here a name is a
word, not the subject. Preset and section names are words, snake case, kebab case, with digits.

:data:`CLASSIC` is the lexicon the kit was written with: a hand-written example the campaign keeps
drawing (one deployment in four, and a code of zeros), the default of a
:class:`~.lockstep_core.Setup` and what a replay file without a ``lexicon`` ran with.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from subagent_tck.conformance.core.certificate import PORTABLE_VARIABLE_PATTERN
from subagent_tck.spec import RUN_CODE, STRUCTURED_OUTPUT, Capability, Preset

from .code import Code

#: Names the rules or the fuzzer give a meaning to: never a lexicon word for a tool.
_RESERVED = frozenset({RUN_CODE, STRUCTURED_OUTPUT, "subagent", "subagent_second", "delegate"})
_PORTABLE = re.compile(PORTABLE_VARIABLE_PATTERN)
#: ASCII words names are built from (tool names add non-ASCII in :func:`.strategies.pick_name`).
_WORDS: tuple[str, ...] = (
    "read", "write", "search", "web", "get", "list", "files", "fetch", "query", "notes", "repo",
    "shell", "grep", "edit", "plan", "docs", "task", "mail", "event", "lookup", "review", "audit",
    "build", "deploy", "triage", "draft", "scan", "sync", "chart", "ledger", "atlas", "quill",
)
#: Values of the variable that has one: words, several words, non-ASCII, digits, punctuation.
_VALUES: tuple[str, ...] = (
    "tck", "Acme Corp", "Zoë", "東京", "42", "O'Brien & Co.", "a/b", "naïve café", "x",
)
#: The roles of the nine presets, in the order of :attr:`Lexicon.presets`.
PRESET_ROLES = ("reviewer", "bare", "scribe", "open", "broken", "stale", "plain", "lead", "auditor")


class Lexicon(BaseModel):
    """The words of one deployment, by role (see the module). Replay files carry it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tools: tuple[str, str, str, str, str] = Field(
        default=("read", "write", "search", "Read", "web"),
        description="read, write, search, a case variant of read, the tool a section guides")
    ghost: str = Field(default="ghost", description="a tool name never registered")
    variables: tuple[str, str, str] = Field(
        default=("project", "team", "nope"),
        description="a variable with a value, one whose value is empty, one never defined")
    value: str = Field(default="tck", description="the value of the first variable")
    presets: tuple[str, str, str, str, str, str, str, str, str] = Field(
        default=("reviewer", "bare", "scribe", "open", "broken", "stale", "plain", "lead",
                 "Auditor"),
        description="preset names by role: " + ", ".join(PRESET_ROLES))
    missing: str = Field(default="missing", description="a preset name no preset has")
    sections: tuple[str, str] = Field(
        default=("house-rules", "web-guide"), description="section names; the second guides a tool")
    field: str = Field(default="text", description="the property of the scribe's output schema")
    title: str = Field(default="Reviewer", description="a word personas are written with")
    prompt: str = Field(default="Do the task.", description="the prompt of every start")
    provider: str = Field(default="nowhere", description="a provider name no target ships")
    captain: str = Field(default="captain", description="a preset composing everything at once")
    mini: str = Field(default="mini", description="a preset with a model alone")
    models: tuple[str, str, str] = Field(
        default=("tck-large", "tck-small", "tck-small-mini"),
        description="model names: the deployment's, the captain's, the mini's")

    @model_validator(mode="after")
    def _distinct(self) -> Lexicon:
        read, write, search, variant, web = self.tools
        problems = []
        if variant == read or variant.casefold() != read.casefold():
            problems.append(f"tools[3] {variant!r} must be a case variant of tools[0] {read!r}")
        folded = [n.casefold() for n in (read, write, search, web, self.ghost)]
        if len(set(folded)) != len(folded) or set(self.tools) & _RESERVED:
            problems.append("the tool names and ghost must differ (ignoring case) and none may be "
                            f"one of {sorted(_RESERVED)}")
        if len(set(self.variables)) != 3 or not all(
                _PORTABLE.fullmatch(v) for v in self.variables):
            problems.append("the three variables must be distinct names in [a-z][a-z0-9_]*")
        names = [n.casefold() for n in (*self.presets, self.missing, self.captain, self.mini)]
        if len(set(names)) != len(names) or not all(names):
            problems.append("the preset names, missing, captain and mini must be non-empty and "
                            "differ (ignoring case)")
        if len(set(self.models)) != 3 or not all(self.models):
            problems.append("the three model names must be non-empty and differ")
        if len(set(self.sections)) != 2 or not all(self.sections):
            problems.append("the two section names must be non-empty and differ")
        if not self.provider or not self.field or "{" in self.value + self.title + self.prompt:
            problems.append("provider and field must be non-empty; value, title and prompt "
                            "hold no braces")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # --- what the deployment and the steps are made of ----------------------------------------

    @property
    def register_names(self) -> tuple[str, ...]:
        """The core names a deployment registers, ``run_code`` (reserved) last."""
        return (*self.tools, RUN_CODE)

    @property
    def extra_names(self) -> tuple[str, ...]:
        """Names a restriction may list besides the registered globals (TF-08's offenders)."""
        return (self.ghost, STRUCTURED_OUTPUT, RUN_CODE, self.tools[4], self.tools[3])

    @property
    def forged_names(self) -> tuple[str, ...]:
        """Names looked up or called that are never registered."""
        return (self.ghost, STRUCTURED_OUTPUT)

    def variable_values(self) -> dict[str, str]:
        valued, empty, _ = self.variables
        return {valued: self.value, empty: ""}

    def deployment_personas(self) -> tuple[str, str]:
        """The deployment persona templates a set-up chooses from (the second uses the empty
        variable)."""
        valued, empty, _ = self.variables
        return (f"You work on {{{{{valued}}}}}.",
                f"You work on {{{{{valued}}}}} with {{{{{empty}}}}}.")

    @property
    def persona(self) -> str:
        return self.deployment_personas()[0]

    def section_specs(self) -> tuple[tuple[str, str, str | None], ...]:
        """(name, text, the tool it guides or None), after the persona."""
        house, guide = self.sections
        web = self.tools[4]
        return ((house, "Answer briefly.", None),
                (guide, f"Look facts up with the {web} tool.", web))

    def preset_specs(self, advertised: Collection[Capability] = ()) -> dict[str, Preset]:
        """The presets by name; the captain's spawn policy and the models only when some
        provider of the target advertises their capability (``advertised``): a target without
        them is never sent a field it does not know."""
        read, write, search, _, web = self.tools
        valued, empty, undefined = self.variables
        by_role = {
            "reviewer": Preset(f"{self.title} of {{{{{valued}}}}}.", {"allow": [read, search]}),
            "bare": Preset(None, {"allow": []}),
            "scribe": Preset("", None, {"type": "object",
                                        "properties": {self.field: {"type": "string"}}}),
            "open": Preset(None, {"deny": [write]}),
            "broken": Preset(f"Uses {{{{{undefined}}}}}."),
            "stale": Preset(None, {"deny": [self.ghost]}),
            "plain": Preset(),
            "lead": Preset(f"Lead of {{{{ {empty} }}}}."),
            "auditor": Preset(f"Auditor of {{{{{valued}}}}}.", {"deny": [web]}),
        }
        specs = {name: by_role[role]
                 for name, role in zip(self.presets, PRESET_ROLES, strict=True)}
        policy = ({"deny": [self.presets[0]]} if Capability.SPAWN_POLICY in advertised
                  else None)
        models = self.models if Capability.MODEL_SELECTION in advertised else (None,) * 3
        specs[self.captain] = Preset(f"Captain of {{{{{valued}}}}}.", {"deny": [web]}, None,
                                     policy, models[1])
        specs[self.mini] = Preset(None, None, None, None, models[2])
        return specs

    def deployment_model(self, advertised: Collection[Capability] = ()) -> str | None:
        """The model the root runs on (only where a provider advertises modelSelection)."""
        return self.models[0] if Capability.MODEL_SELECTION in advertised else None

    def request_personas(self) -> tuple[str, ...]:
        """Request personas: plain, empty (PE-03), templated (one variable is the empty
        string), and broken templates (PE-05)."""
        valued, empty, undefined = self.variables
        return (f"Plain {self.title.lower()}.", "", f"{self.title} of {{{{{valued}}}}}.",
                f"{{{{ {valued} }}}} lead", f"{self.title} for {{{{{empty}}}}}.",
                f"Uses {{{{{undefined}}}}}.", "Broken {{")

    def explain(self, presets: Sequence[object], persona: bool) -> list[str]:
        """What a reader of a finding needs of these words: each preset the steps name (its
        definition, or that there is none; a spawn policy and a model are sent only where a
        provider advertises them) and, when a persona is involved, the variables."""
        specs = self.preset_specs(tuple(Capability))
        lines = []
        for name in dict.fromkeys(p for p in presets if isinstance(p, str)):
            spec = specs.get(name)
            newer = "" if spec is None else "".join(
                f", {key} {value!r}" for key, value in (("spawnPolicy", spec.spawn_policy),
                                                         ("model", spec.model))
                if value is not None)
            lines.append(f"preset {name!r}: no such preset" if spec is None else (
                f"preset {name!r}: persona {spec.persona!r}, toolFilter {spec.tool_filter!r}, "
                f"outputSchema {spec.output_schema!r}{newer}"))
        if persona or any(isinstance(p, str) and p in specs for p in presets):
            lines.append(f"variables {self.variable_values()!r} ({self.variables[2]!r} undefined)")
        return lines


CLASSIC = Lexicon()


def _word(code: Code) -> str:
    return code.choose(_WORDS)


def _tool(code: Code) -> str:
    first, second = _word(code), _word(code)
    return code.choose((first, f"{first}_{second}", f"{first}-{second}", f"{first}{second}",
                        f"mcp__{first}__{second}", f"{first}.{second}", f"{first}2"))


def _variable(code: Code) -> str:
    first, second = _word(code), _word(code)
    return code.choose((first, f"{first}_{second}", f"{first}{code.take(10)}", f"{first}_"))


def _model(code: Code) -> str:
    """A model name in one of the vendors' spellings (dashes, dots, a provider prefix, a tag)."""
    first, second = _word(code), _word(code)
    number = code.take(10)
    return code.choose((f"{first}-{number}", f"{first}-{second}-{number}.{code.take(10)}",
                        f"{second}/{first}-{number}", f"{first}:{number}b",
                        f"{first.capitalize()}-{number}"))


def _label(code: Code) -> str:
    first, second = _word(code), _word(code)
    return code.choose((first, f"{first}-{second}", f"{first}_{second}", f"{first}{code.take(10)}"))


def _distinct(code: Code, count: int, draw: Callable[[Code], str],
              taken: Sequence[str] = ()) -> list[str]:
    """``count`` names from ``draw``, different from each other and from ``taken`` ignoring
    case; a repeat gets a number (an exhausted code draws the same word every time)."""
    seen = {t.casefold() for t in taken} | {r.casefold() for r in _RESERVED}
    out: list[str] = []
    for _ in range(count):
        name = draw(code)
        suffix = 2
        base = name
        while name.casefold() in seen:
            name, suffix = f"{base}{suffix}", suffix + 1
        seen.add(name.casefold())
        out.append(name)
    return out


def pick_lexicon(code: Code) -> Lexicon:
    """The lexicon of one deployment: :data:`CLASSIC` one time in four (and for a code of
    zeros), else words drawn from ``code`` for every role."""
    if code.take(4) == 0:
        return CLASSIC
    read, write, search, web, ghost = _distinct(code, 5, _tool)
    # every word starts with a lower-case letter: both variants differ from ``read``
    variant = read.upper() if code.take(2) else read[:1].upper() + read[1:]
    variables = _distinct(code, 3, _variable)
    presets = _distinct(code, 10, _label)
    auditor = presets[8]
    presets[8] = auditor[:1].upper() + auditor[1:]
    fields: dict[str, Any] = {
        "tools": (read, write, search, variant, web), "ghost": ghost,
        "variables": tuple(variables), "value": code.choose(_VALUES),
        "presets": tuple(presets[:9]), "missing": presets[9],
        "sections": tuple(_distinct(code, 2, _label)), "field": _word(code),
        "title": _word(code).capitalize(),
        "prompt": f"{_word(code).capitalize()} the {_word(code)}.",
        "provider": f"{_word(code)}-{_word(code)}-provider",
    }
    # drawn last, so that every word drawn before the newer controls came stays as it was
    fields["captain"], fields["mini"] = _distinct(code, 2, _label, presets)
    fields["models"] = tuple(_distinct(code, 3, _model))
    return Lexicon(**fields)
