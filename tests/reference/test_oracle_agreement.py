"""Hypothesis: the Host agrees with the spec oracle (:func:`spec.decide_start`) on random states:
the same rejections (any code the oracle lists), and on success the same child depth, persona
and view in the child's first model request. A rejection leaves the host as it was."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.reference import Host, InProcessProvider, ScriptedModel, default_providers
from subagent_tck.reference.store import depth_text
from subagent_tck.spec import (
    ABSENT,
    CONTROLS,
    MAX_SAFE_INTEGER,
    STRUCTURED_OUTPUT,
    Edition,
    Preset,
    StartState,
    TckError,
    decide_start,
    resolve_view,
    validate_restriction,
)

from .conftest import echo, state

NAMES = ["a", "b", "c", "d"]
VARIABLES = {"name": "Ada"}

depths = st.one_of(
    st.integers(0, 4),
    st.sampled_from([MAX_SAFE_INTEGER, MAX_SAFE_INTEGER - 1, 2**53, -1, 0.5, -0.0, 1.0,
                     float("nan"), float("inf"), True, "1", None, [], {}]),
)
name_lists = st.lists(st.sampled_from([*NAMES, "zz", "run_code"]), max_size=3)
filters = st.one_of(
    st.fixed_dictionaries({}, optional={"allow": st.none() | name_lists,
                                        "deny": st.none() | name_lists}),
    st.sampled_from(["a", ["a"], {"allow": "a"}]),
)
personas = st.sampled_from(["Child {{name}}.", "", "Plain.", "Bad {{who}}", "{{", 7])
schemas = st.sampled_from([{"type": "object"}, {"type": "array"}, "x",
                           {"type": "object", "properties": {"v": {"type": "string"}}}])
presets = st.builds(
    Preset,
    st.none() | personas,
    st.none() | filters,
    st.none() | schemas,
)


@st.composite
def requests(draw: st.DrawFn, preset_names: list[str]) -> dict[str, Any]:
    request: dict[str, Any] = {
        "provider": draw(st.sampled_from(["spawn", "fork", "acp", "custom", "nope"])),
        "prompt": "task",
    }
    optional = {
        "maxDepth": depths,
        "preset": st.sampled_from([*preset_names, "missing"]),
        "persona": st.none() | personas,
        "toolFilter": st.none() | filters,
        "outputSchema": st.none() | schemas,
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            request[key] = draw(strategy)
    return request


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    preset_map = draw(st.dictionaries(st.sampled_from(["p1", "p2"]), presets, max_size=2))
    return {
        "edition": draw(st.sampled_from(list(Edition))),
        "globals": draw(st.lists(st.sampled_from(NAMES), unique=True)),
        "persona": draw(st.sampled_from([None, "Deployment {{name}}."])),
        "custom": draw(st.sets(st.sampled_from(CONTROLS))),
        "presets": preset_map,
        "header": draw(depths),
        "runtime": draw(st.just(ABSENT) | depths),
        "request": draw(requests(sorted(preset_map))),
    }


@settings(max_examples=120, deadline=None)
@given(scenarios())
def test_a_start_agrees_with_the_oracle(s: dict[str, Any]) -> None:
    providers = [*default_providers(), InProcessProvider("custom", s["custom"])]
    model = ScriptedModel()
    host = Host(model, edition=s["edition"], persona=s["persona"], variables=VARIABLES,
                providers=providers)
    for name in s["globals"]:
        host.register_tool(echo(name))
    for name, preset in s["presets"].items():
        host.add_preset(name, preset)
    parent = host.create_agent(runtime_depth=s["runtime"])
    host.store.put_header(parent.session, None, depth_text(s["header"]))
    oracle = decide_start(
        StartState(
            edition=s["edition"],
            providers={p.name: p.capabilities for p in providers},
            global_names=s["globals"],
            presets=s["presets"],
            variables=VARIABLES,
            deployment_persona=s["persona"],
            parent_header_depth=s["header"],
            parent_runtime_depth=s["runtime"],
        ),
        s["request"],
    )
    before = state(host)
    try:
        result = host.start_and_run(parent.id, s["request"])
    except TckError as exc:
        assert not oracle.ok, f"host refused {exc.code} where the oracle accepts"
        assert exc.code in oracle.codes, (exc.code, oracle.faults)
        assert state(host) == before
        return
    finally:
        host.close()
    assert oracle.ok, f"host accepted where the oracle refuses with {oracle.faults}"
    assert result.depth == oracle.child_depth
    first = model.requests_of(result.agent)[0]
    assert first.system == (oracle.persona or "")
    restrictions = []
    if oracle.tool_filter is not None:
        verdict = validate_restriction(oracle.tool_filter, s["globals"])
        assert verdict.restriction is not None
        restrictions.append(verdict.restriction)
    locals_ = [STRUCTURED_OUTPUT] if oracle.output_schema is not None else []
    expected = resolve_view(s["globals"], restrictions, locals_)
    assert [t.name for t in first.tools] == [e.name for e in expected]
