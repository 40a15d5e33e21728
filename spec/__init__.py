"""The executable rule catalogue: the rules as data and pure oracle functions.

This package imports nothing else of the kit (docs/architecture.md). Public surface below;
everything else is private to its module.
"""

from .catalogue import CATALOGUE, RULES_BY_ID, catalogue_hash, get_rule
from .depth import (
    ABSENT,
    DepthProblem,
    DepthVerdict,
    StartDepth,
    check_depth,
    check_depth_json,
    decide_start_depth,
    read_json_number,
)
from .errors import ErrorCode, TckError
from .faults import Fault, Stage
from .judge import judge
from .model_selection import child_model, model_problem
from .persona import (
    Section,
    TemplateVerdict,
    assemble_system_prompt,
    compose_persona,
    render_template,
    resolve_sections,
)
from .restriction import (
    Restriction,
    RestrictionVerdict,
    validate_restriction,
    validate_spawn_policy,
)
from .rule import Example, Rule, Source
from .spawn_policy import (
    admits_preset,
    name_token,
    named_refused,
    offered_text,
    parse_policies,
    refused_presets,
    words,
)
from .start import FIELD_CAPABILITY, Preset, StartOutcome, StartState, decide_start
from .subagent_tool import ToolLoad, decide_tool_call, decide_tool_load, mounts, tool_cap
from .view import (
    Origin,
    ViewEntry,
    offers_run_code,
    resolve_view,
    sdk_binding_names,
    wire_tool_names,
)
from .vocabulary import (
    CONTROLS,
    DEFAULT_EDITION,
    INITIAL_HOST_DEPTH,
    MAX_SAFE_INTEGER,
    PERSONA_SECTION,
    PROVIDER_MANAGED,
    RUN_CODE,
    STRUCTURED_OUTPUT,
    SUBAGENT_TOOL_NAME,
    SUBAGENT_TOOL_PARAMETERS,
    Capability,
    Component,
    Edition,
    Family,
    Level,
    PresentationMode,
    StopReason,
)

__all__ = [
    "ABSENT", "CATALOGUE", "CONTROLS", "DEFAULT_EDITION", "FIELD_CAPABILITY", "INITIAL_HOST_DEPTH",
    "MAX_SAFE_INTEGER", "PERSONA_SECTION", "PROVIDER_MANAGED", "RULES_BY_ID", "RUN_CODE",
    "STRUCTURED_OUTPUT", "SUBAGENT_TOOL_NAME", "SUBAGENT_TOOL_PARAMETERS", "Capability",
    "Component", "DepthProblem", "DepthVerdict", "Edition", "ErrorCode", "Example", "Family",
    "Fault", "Level", "Origin", "PresentationMode", "Preset", "Restriction", "RestrictionVerdict",
    "Rule", "Section", "Source", "Stage", "StartDepth", "StartOutcome", "StartState", "StopReason",
    "TckError", "TemplateVerdict", "ToolLoad", "ViewEntry", "admits_preset",
    "assemble_system_prompt", "catalogue_hash", "check_depth", "check_depth_json", "child_model",
    "compose_persona", "decide_start", "decide_start_depth", "decide_tool_call",
    "decide_tool_load", "get_rule", "judge", "model_problem", "mounts", "name_token",
    "named_refused", "offered_text", "offers_run_code", "parse_policies", "read_json_number",
    "refused_presets", "render_template", "resolve_sections", "resolve_view", "sdk_binding_names",
    "tool_cap", "validate_restriction", "validate_spawn_policy", "wire_tool_names", "words",
]
