"""The zoo entries of each family, and how a test judges one with the tiny runner: its BREAKS
rule fails, and no rule fails outside BREAKS and ALSO_BREAKS."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from subagent_tck.conformance.engine.check import REGISTRY
from subagent_tck.conformance.engine.checks import load_checks
from subagent_tck.spec import Edition

from .tiny_runner import Verdicts, checks_of, run

TOOL_FILTER = (
    "deny_before_allow", "union_of_restrictions", "empty_allow_hides_locals",
    "allow_filters_locals", "global_wins_over_local", "run_code_registrable",
    "no_op_filter_accepted", "local_names_accepted", "first_offender_only",
    "deny_freezes_admitted", "allow_admits_later_tools", "stale_allowed_tools",
    "schemas_only_filter", "child_locals_leak_to_parent", "dispose_lifts_all",
    "deny_skips_unfamiliar_names", "null_list_read_as_empty", "filter_unknown_keys_ignored",
    "preset_null_list_read_as_empty", "sdk_only_model_call_runs_global",
    "model_calls_checked_in_default_mode", "reserved_name_by_identity",
    # a runtime's own grammar, declared (docs/driver-api.md#dialect)
    "server_deny_ignored", "wildcard_prefix_dropped", "declared_folding_ignored",
    # TF-16 (SHOULD): guidance kept where its tool is hidden, always or beside a relative name
    "guidance_kept_where_hidden", "guidance_matched_loosely",
)
DEPTH = (
    "depth_not_recorded", "runtime_overrides_header", "cap_refuses_equal",
    "session_before_cap_check", "cap_not_validated", "malformed_depth_read_as_zero",
    "runtime_depth_unchecked", "no_overflow_check", "resume_forgets_depth",
    "default_cap_when_omitted", "parent_depth_read_once",
)
GATING = (
    "tool_filter_silently_dropped", "descriptor_controls_ungated", "provider_called_before_gate",
    "ignores_output_schema", "fallback_provider", "cap_decided_before_gate",
    "preset_model_ungated",
)
SPAWN_POLICY = (
    "spawn_allow_overrides_deny", "spawn_policies_united", "spawn_denied_after_publish",
    "spawn_policy_names_unchecked", "spawn_policy_lost_on_resume", "tool_lists_every_preset",
    "spawn_policy_skipped_under_cap",
)
MODEL_SELECTION = (
    "child_runs_on_parent_model", "preset_model_beats_request", "resumed_child_loses_model",
)
PERSONA = (
    "persona_leaks_to_parent", "omitted_persona_dropped", "empty_persona_ignored",
    "persona_as_second_channel", "malformed_placeholder_passthrough", "blank_persona_dropped",
    "variables_found_on_the_object", "persona_notice_after_resume",
)
FIRST_REQUEST = (
    "run_code_after_first_request", "persona_after_publish", "no_rollback_on_bad_template",
    "resume_without_descriptor", "tools_frozen_per_turn", "nested_tool_parameters_flattened",
    "resume_freezes_deny_filter", "lenient_descriptor_fields", "schema_type_contains_object",
)
EDITIONS = ("preset_lookup_falls_back", "request_persona_accepted", "request_filter_dropped")
SUBAGENT_TOOL = (
    "tool_exposes_provider_param", "tool_registered_before_provider", "tool_outlives_provider",
    "wording_ignores_fork", "duplicate_tool_name_replaces", "cap_mounted_without_depth_limit",
    "tool_ignores_live_depth", "at_cap_hides_tool", "background_flag_skips_cap",
    "notice_on_every_request", "leaks_run_on_error", "partial_output_as_success",
    "abort_not_bridged",
)
CONFORMING = ("reversed_view_order", "no_depth_limit")


def entry(name: str) -> ModuleType:
    root = str(Path(__file__).resolve().parents[3])  # the repository root holds examples/
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module(f"examples.providers.{name}")


def checks_citing(*families: str) -> list[str]:
    """The checks that cite a rule of any of ``families`` (e.g. ``"TF"``)."""
    load_checks()
    return [name for name, chk in REGISTRY.items()
            if any(r.split("-")[0] in families for r in chk.rules)]


#: The entries' bugs do not depend on conversation seeding, so ``fork`` (the same in-process
#: implementation as ``spawn``) is left out to keep the suite fast.
PROVIDERS = ("spawn", "acp")


def judge(name: str, *families: str) -> tuple[ModuleType, Verdicts]:
    """Run the checks of ``families`` on the entry: default edition, ``spawn`` and ``acp``,
    one drawn state per property on top of the fixed cases. (tests/test_zoo.py certifies
    every entry with the whole catalogue.)"""
    module = entry(name)
    verdicts = run(module.provider(), checks_citing(*families),
                   editions=[Edition.PRESET_COMPOSITION], max_examples=1, providers=PROVIDERS)
    return module, verdicts


def allowed(module: ModuleType) -> set[str]:
    return ({module.BREAKS} if module.BREAKS else set()) | set(getattr(module, "ALSO_BREAKS", ()))


def assert_breaks_only_its_rule(name: str, family: str) -> None:
    """The checks of ``family`` fail the entry's ``BREAKS`` rule and nothing outside
    :func:`allowed`."""
    module, verdicts = judge(name, family)
    failed = verdicts.failed_rules()
    assert module.BREAKS in failed, verdicts.explain()
    assert failed <= allowed(module), verdicts.explain()


def assert_judged_where_advertised(module: str, rule: str, advertises: str, lacks: str) -> None:
    """On ``fewer_capabilities`` (whose providers advertise different controls) the checks of
    the check module ``module`` pass ``rule`` for the provider ``advertises``, and leave it
    unplanned for ``lacks``, which does not advertise the rule's control."""
    verdicts = run(entry("fewer_capabilities").provider(), checks_of(module), max_examples=2)
    assert not verdicts.bad(), verdicts.explain()
    assert verdicts.outcomes[rule, advertises, "preset-composition"] == "pass"
    assert (rule, lacks, "preset-composition") not in verdicts.outcomes


def assert_conforms(name: str, family: str) -> None:
    """A conforming entry (``BREAKS = None``) passes every check of ``family``."""
    module, verdicts = judge(name, family)
    assert module.BREAKS is None
    assert not verdicts.bad(), verdicts.explain()
