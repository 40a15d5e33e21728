"""The dialect a target declares (conformance/core/dialect.py, docs/driver-api.md#dialect): its
shape, what a target that declares nothing has, and what travels on the wire."""

from __future__ import annotations

import importlib
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pydantic import ValidationError

from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.core.dialect import (
    DEFAULT_CHANNELS,
    ChannelKind,
    EntryForm,
    EntryMeaning,
    FilterGrammar,
    PromptFrame,
    RestrictionChannel,
    channels_of,
)
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    ProviderInfo,
    TargetInfo,
    ToolSpec,
)
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report import report_json, report_junit, report_markdown, report_text
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.codec import to_json


def test_a_target_that_declares_no_channel_has_the_live_restriction_alone() -> None:
    assert channels_of(None) == DEFAULT_CHANNELS
    assert channels_of([]) == DEFAULT_CHANNELS
    assert [c.kind for c in DEFAULT_CHANNELS] == [ChannelKind.LIVE]
    child = RestrictionChannel(kind=ChannelKind.CHILD, lists=["deny"])
    assert channels_of([child]) == (child,)


@pytest.mark.parametrize(("spelling", "meaning"), [
    ("mcp__{server}", "server"), ("mcp__{server}__*", "server"), ("mcp__*", "all"),
    ("mcp__{server}__{tool}", "tool"), ("{prefix}*", "prefix"),
    ("mcp__{server}__{prefix}*", "prefix"),
])
def test_an_entry_form_whose_slots_fit_its_meaning_is_accepted(spelling: str,
                                                               meaning: str) -> None:
    form = EntryForm(spelling=spelling, meaning=EntryMeaning(meaning))
    assert form.spelling == spelling


@pytest.mark.parametrize(("spelling", "meaning", "said"), [
    ("mcp__*", "server", "needs the slot"),
    ("mcp__{server}", "all", "has no slot"),
    ("{prefix}", "tool", "needs the slot"),
    ("mcp__{server}__{tool}", "server", "only an entry of meaning 'tool'"),
    ("{name}*", "prefix", "unknown slot"),
    ("{prefix}{prefix}", "prefix", "twice"),
])
def test_an_entry_form_whose_slots_do_not_fit_is_refused_naming_why(
        spelling: str, meaning: str, said: str) -> None:
    with pytest.raises(ValidationError, match=said):
        EntryForm(spelling=spelling, meaning=EntryMeaning(meaning))


def test_a_channel_carries_at_least_one_list() -> None:
    with pytest.raises(ValidationError):
        RestrictionChannel(kind=ChannelKind.PERMISSION, lists=[])


def test_the_dialect_travels_in_the_targets_info_and_reads_back_the_same() -> None:
    info = TargetInfo(
        name="t", providers=[ProviderInfo(name="p", capabilities=[])],
        restrictionChannels=[RestrictionChannel(
            kind=ChannelKind.PERMISSION, lists=["deny"], via="permission rules",
            grammar=FilterGrammar(forms=[EntryForm(spelling="mcp__{server}",
                                                   meaning=EntryMeaning.SERVER)],
                                  caseInsensitive=True))],
        promptFrame=PromptFrame.model_validate({"child": {"before": "Hi {*}\n\n"}}))
    assert TargetInfo.model_validate(to_json(info)) == info
    plain = TargetInfo(name="t", providers=[])
    assert plain.restrictionChannels is None and plain.promptFrame is None


def test_root_preset_permissions_and_a_tools_server_travel_only_when_set() -> None:
    bare = to_json(DeploymentConfig(tools=[ToolSpec(name="read")]))
    assert "rootPreset" not in bare and "permissions" not in bare
    assert "server" not in bare["tools"][0]
    given = to_json(DeploymentConfig(tools=[ToolSpec(name="read", server="files")],
                                     rootPreset="lead", permissions=[{"deny": ["read"]}]))
    assert given["rootPreset"] == "lead" and given["permissions"] == [{"deny": ["read"]}]
    assert given["tools"][0]["server"] == "files"


# --- the dialect section in every report ----------------------------------------------------

HOSTILE_VIA = "rules\x1b[31m <b>*red*</b> | ]]>"
ROOT = Path(__file__).resolve().parents[2]


def _variants_certificate() -> Certificate:
    """TF-01 on the zoo's permission_rules_variants (case folding and allow-wins declared), its
    channel's words made hostile."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    entry = importlib.import_module("examples.providers.permission_rules_variants")
    target = entry.provider()
    target.via = HOSTILE_VIA  # the target's text: every report must escape it
    return certify(target, RunConfig(target_spec="python:examples.providers."
                                     "permission_rules_variants:provider", seed=3,
                                     rules=("TF-01",)))


def test_every_report_has_the_dialect_section_with_the_declared_variants_escaped() -> None:
    cert = _variants_certificate()
    assert cert.succeeded
    channels = {c.kind: c for c in cert.dialect.channels}
    permission = channels[ChannelKind.PERMISSION]
    assert permission.declared and permission.checks == ["tool-filter-allow-before-deny"]
    assert len(permission.variants) == 2
    assert all(c.checks for c in cert.dialect.channels)  # every declared channel exercised
    document = json.loads(report_json.render(cert))
    assert document["dialect"]["channels"][-1]["variants"] == permission.variants
    text, markdown = report_text.render(cert), report_markdown.render(cert)
    properties = {p.get("name"): p.get("value") for p in
                  ET.fromstring(report_junit.render(cert)).iter("property")}
    junit = " ".join(v or "" for k, v in properties.items() if (k or "").startswith("dialect."))
    for report in (text, markdown, junit):
        assert "case folding" in report and "allow-wins" in report
        assert "\x1b" not in report
    assert "<b>" not in markdown and "&lt;b&gt;" in markdown and "\\|" in markdown


def test_a_target_that_declares_nothing_has_the_default_live_channel_in_its_section() -> None:
    cert = certify(reference_target(), RunConfig(target_spec="reference", seed=0,
                                                 rules=("TF-14",)))
    live = cert.dialect.channels[0]
    assert live.kind is ChannelKind.LIVE and live.checks == ["tool-filter-lift-on-dispose"]
    assert cert.dialect.frame is None and "prompt frame: none declared" in cert.dialect.lines()
