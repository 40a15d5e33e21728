"""The view oracle (spec/view.py): TF-01..TF-06 and the one-resolver sets of TF-12."""

from __future__ import annotations

from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.spec import (
    RUN_CODE,
    Origin,
    PresentationMode,
    Restriction,
    ViewEntry,
    offers_run_code,
    resolve_view,
    sdk_binding_names,
    wire_tool_names,
)

Scope = tuple[list[str], list[Restriction], list[str], PresentationMode]
FAST = settings(max_examples=60, deadline=None)
NAMES = st.sampled_from(["a", "b", "c", "d", "e", "f"])
RESTRICTIONS = st.builds(
    Restriction.of,
    st.one_of(st.none(), st.lists(NAMES, max_size=4)),
    st.one_of(st.none(), st.lists(NAMES, max_size=4)),
)
SCOPES = st.tuples(
    st.lists(NAMES, unique=True, max_size=6),
    st.lists(RESTRICTIONS, max_size=3),
    st.lists(NAMES, unique=True, max_size=3),
    st.sampled_from(list(PresentationMode)),
)


def origins(scope: Scope) -> dict[str, Origin]:
    """Each name of the scope's view -> where it comes from."""
    return {e.name: e.origin for e in resolve_view(*scope)}


@FAST
@given(SCOPES)
def test_the_view_never_holds_a_name_twice(scope: Scope) -> None:
    names = [e.name for e in resolve_view(*scope)]
    assert len(names) == len(set(names))


@FAST
@given(SCOPES)
def test_locals_are_always_visible_and_shadow_globals(scope: Scope) -> None:
    view = origins(scope)
    for name in scope[2]:
        assert view[name] is Origin.LOCAL


@FAST
@given(SCOPES, st.randoms(use_true_random=False))
def test_permuting_restrictions_never_changes_the_view(scope: Scope, rnd: Random) -> None:
    globals_, restrictions, locals_, mode = scope
    shuffled = list(restrictions)
    rnd.shuffle(shuffled)
    assert set(resolve_view(globals_, restrictions, locals_, mode)) == set(
        resolve_view(globals_, shuffled, locals_, mode)
    )


@FAST
@given(SCOPES)
def test_a_global_is_visible_iff_every_restriction_admits_it(scope: Scope) -> None:
    globals_, restrictions, locals_, _ = scope
    view = origins(scope)
    for name in globals_:
        if name in locals_:
            continue
        admitted = all(r.admits(name) for r in restrictions)
        assert (view.get(name) is Origin.GLOBAL) == admitted


@FAST
@given(SCOPES)
def test_run_code_is_outside_the_filter_and_offered_by_mode(scope: Scope) -> None:
    globals_, restrictions, locals_, mode = scope
    view = resolve_view(globals_, [Restriction.of([], None), *restrictions], locals_, mode)
    assert (ViewEntry(RUN_CODE, Origin.RESERVED) in view) == offers_run_code(mode)
    assert offers_run_code(mode) == (mode is not PresentationMode.NATIVE)


@FAST
@given(SCOPES)
def test_the_sdk_binds_exactly_the_visible_tools_but_run_code(scope: Scope) -> None:
    view = resolve_view(*scope)
    mode = scope[3]
    names = {e.name for e in view} - {RUN_CODE}
    assert sdk_binding_names(view, mode) == (frozenset() if mode is PresentationMode.NATIVE
                                             else names)
    wire = wire_tool_names(view, mode)
    if mode is PresentationMode.PTC:
        assert wire == {RUN_CODE}
    else:
        assert wire == {e.name for e in view}


def test_a_duplicate_global_name_is_placed_once_in_registration_order() -> None:
    view = resolve_view(["b", "a", "b"], [], ["x", "a"])
    assert view == (
        ViewEntry("b", Origin.GLOBAL),
        ViewEntry("a", Origin.LOCAL),
        ViewEntry("x", Origin.LOCAL),
    )
