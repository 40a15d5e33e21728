"""A child's start as a check makes it and the oracle's answer for it; nothing here decides a
rule (checks call ``ctx.expect``/``ctx.fail``).

- :func:`composition`: where a child's persona, tool filter and output schema go in the run's
  edition (a preset in ``preset-composition``, EN-01; the request in ``request-controls``,
  EN-03). Controls are keyed by their request field; which capability each asks for is the
  spec's :data:`~subagent_tck.spec.FIELD_CAPABILITY`, nowhere else.
- :func:`start_request` / :func:`start_state` / :func:`expected_start` / :func:`judge`: a start
  and the oracle's verdict on it as the deployment stands.
- :func:`marker`: the string a start's prompt carries so that the gateway can script that agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.spec import (
    ABSENT,
    FIELD_CAPABILITY,
    Capability,
    Edition,
    Preset,
    Restriction,
    StartOutcome,
    StartState,
    check_depth,
    decide_start,
)

from ...core.protocol import DeploymentConfig, PresetSpec, ProviderInfo, SessionHeader, StartRequest
from ...core.target import Deployment
from ..check import CheckContext

#: The name :func:`composition` gives the preset it makes in the preset-composition edition.
PRESET_NAME = "tck-composition"
#: A valid output schema: an object schema (FR-01 expects ``structured_output`` in the view).
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
#: The child controls a composition places (``maxDepth`` always travels in the request).
COMPOSED = ("persona", "toolFilter", "outputSchema")


def marker(ctx: CheckContext, label: str) -> str:
    """A string unique in the check run ``ctx``, to place in a prompt so that the gateway can
    script that agent. Counted per check run, never per process: a check run draws the same
    markers whichever check runs came before it in its process (docs/certify.md#jobs)."""
    ctx.markers += 1
    return f"[tck:{label}:{ctx.markers}]"


# --- composition -------------------------------------------------------------------------


@dataclass(frozen=True)
class Composition:
    """Where a child's controls go: ``presets`` for the deployment config, ``fields`` for the
    start request (see :func:`composition`)."""

    presets: list[PresetSpec] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)

    def oracle_presets(self) -> dict[str, Preset]:
        return oracle_presets(self.presets)


def oracle_presets(presets: Iterable[PresetSpec]) -> dict[str, Preset]:
    """Deployment presets as the oracle reads them."""
    return {p.name: Preset(p.persona, p.toolFilter, p.outputSchema, p.spawnPolicy, p.model)
            for p in presets}


def composition(
    edition: Edition, controls: Mapping[str, Any], preset: str = PRESET_NAME
) -> Composition:
    """Put ``controls`` (``{persona?, toolFilter?, outputSchema?}``: a key given is asked for,
    whatever its value, ``persona=""`` included, PE-03) in a preset named ``preset``
    (preset-composition: the request names the preset, EN-01) or in the request itself
    (request-controls, EN-03)."""
    unknown = set(controls) - set(COMPOSED)
    if unknown:
        raise TypeError(f"check bug: {sorted(unknown)} are not composed controls")
    if not controls:
        return Composition()
    if edition is Edition.PRESET_COMPOSITION:
        return Composition([PresetSpec(name=preset, **controls)], {"preset": preset})
    return Composition([], dict(controls))


def capabilities_of(controls: Mapping[str, Any]) -> frozenset[Capability]:
    """The capabilities asking for ``controls`` needs (the spec's field-to-capability map)."""
    return frozenset(FIELD_CAPABILITY[k] for k in controls)


def capable(provider: ProviderInfo | None, *capabilities: Capability) -> bool:
    """Whether the provider under test advertises every one of ``capabilities``."""
    return provider is not None and all(c in provider.capabilities for c in capabilities)


def supported_controls(provider: ProviderInfo | None, wanted: Mapping[str, Any]) -> dict[str, Any]:
    """``wanted`` reduced to the controls the provider advertises (the others would be refused
    by capability gating, which CA decides)."""
    return {k: v for k, v in wanted.items() if capable(provider, FIELD_CAPABILITY[k])}


# --- starts ------------------------------------------------------------------------------


def provider_name(ctx: CheckContext) -> str:
    """The name of the provider under test (a per-provider check has one)."""
    if ctx.provider is None:
        raise AssertionError("a per-provider check ran without a provider")
    return ctx.provider.name


def neutral_policy(ctx: CheckContext) -> dict[str, Any]:
    """A spawn policy that refuses nothing, where the provider under test takes one (else no
    field): a runtime may offer its delegation tool only to an agent whose definition lets it
    delegate (opencode: a task rule), and a rule about the cap asks the cap's question, not
    that permission's."""
    provider = ctx.provider
    return ({"spawnPolicy": {"deny": []}}
            if provider is not None and Capability.SPAWN_POLICY in provider.capabilities else {})


def start_request(
    parent: str, provider: object, prompt: str, fields: Mapping[str, Any] | None = None
) -> StartRequest:
    """A start request with exactly ``fields`` set (absent controls stay absent)."""
    return StartRequest(parent=parent, provider=provider, prompt=prompt, **dict(fields or {}))


def start_state(
    ctx: CheckContext,
    *,
    global_names: Sequence[str] = (),
    presets: Mapping[str, Preset] | None = None,
    parent_header: object = 0,
    parent_runtime: object = ABSENT,
    deployment_persona: str | None = None,
    variables: Mapping[str, str] | None = None,
    parent_policies: Sequence[Restriction] = (),
    parent_model: str | None = None,
) -> StartState:
    """The oracle's view of the deployment for a start (providers from the run's target)."""
    return StartState(
        edition=ctx.edition,
        providers={p.name: list(p.capabilities) for p in ctx.providers},
        global_names=tuple(global_names),
        presets=dict(presets or {}),
        variables=dict(variables or {}),
        deployment_persona=deployment_persona,
        parent_header_depth=parent_header,
        parent_runtime_depth=parent_runtime,
        parent_policies=tuple(parent_policies),
        parent_model=parent_model,
    )


def expected_start(state: StartState, request: StartRequest) -> StartOutcome:
    return decide_start(state, {"provider": request.provider, "prompt": request.prompt,
                                **request.controls()})


def judge(
    ctx: CheckContext, cfg: DeploymentConfig, globals_: Sequence[str], request: StartRequest
) -> StartOutcome:
    """The oracle's verdict on ``request`` from the top-level agent of a deployment of ``cfg``
    whose globals are now ``globals_`` (absent fields are not asked for)."""
    state = start_state(ctx, global_names=globals_, presets=oracle_presets(cfg.presets),
                        deployment_persona=cfg.persona, variables=cfg.variables)
    return expected_start(state, request)


def oracle_accepts(outcome: StartOutcome, what: str) -> None:
    """The check's own start must be one the oracle accepts; otherwise the check is wrong."""
    if not outcome.ok:
        reasons = "; ".join(f.reason for f in outcome.faults)
        raise AssertionError(f"the check's {what} is refused by the oracle itself: {reasons}")


def header_of(deployment: Deployment, session: str) -> SessionHeader | None:
    return next((h for h in deployment.sessions() if h.session == session), None)


def header_depth(header: SessionHeader | None) -> int | None:
    """A header's ``delegationDepth`` as the oracle reads it (None: absent or out of domain)."""
    return None if header is None else check_depth(header.delegationDepth).value
