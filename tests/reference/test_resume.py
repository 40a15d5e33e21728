"""Cold resume: descriptors re-applied before publication (FR-04), header depth kept (DE-09)."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagent_tck.reference import AcpProvider, Host, InProcessProvider, ScriptedModel
from subagent_tck.spec import PERSONA_SECTION, STRUCTURED_OUTPUT, ErrorCode, TckError

from .conftest import echo, make_host, state


def new_host(path: str, **kwargs: object) -> Host:
    host = Host(ScriptedModel(), path, persona="Deployment persona.", **kwargs)  # type: ignore[arg-type]
    for name in ("a", "b", "c"):
        host.register_tool(echo(name))
    return host


def test_a_child_resumed_in_a_new_host_gets_its_composition_before_its_first_request(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "sessions.sqlite")
    first = new_host(path, edition="request-controls")
    root = first.create_agent()
    child = first.start_and_run(root.id, {
        "provider": "fork", "prompt": "job", "persona": "Historic.",
        "toolFilter": {"deny": ["b"]}, "outputSchema": {"type": "object"},
    })
    first.close()

    second = new_host(path)  # preset-composition: new requests could not carry these controls
    resumed = second.resume(child.session)
    published = second.events.events()[-1]
    assert published.kind == "agent.published" and published.agent == resumed.id
    assert published.data["snapshot"] == {
        "view": ["a", "c", STRUCTURED_OUTPUT],
        "prompt": [[PERSONA_SECTION, "Historic."]],
    }
    second.run_turn(resumed.id, "continue")
    model = second.model
    assert isinstance(model, ScriptedModel)
    request = model.requests_of(resumed.id)[0]
    assert request.system == "Historic."
    assert [t.name for t in request.tools] == ["a", "c", STRUCTURED_OUTPUT]
    assert [m.content for m in request.messages] == ["job", "done", "continue"]
    second.close()


def test_resume_restores_the_header_depth_so_a_restart_cannot_lower_it(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite")
    first = new_host(path)
    root = first.create_agent()
    child = first.start_and_run(root.id, {"provider": "spawn", "prompt": "x", "maxDepth": 1})
    first.close()
    second = new_host(path)
    resumed = second.resume(child.session)
    assert resumed.depth == 1
    before = state(second)
    with pytest.raises(TckError) as caught:
        second.start_and_run(resumed.id, {"provider": "spawn", "prompt": "x", "maxDepth": 1})
    assert caught.value.code is ErrorCode.DEPTH_EXCEEDED
    assert state(second) == before
    second.close()


def test_resuming_a_live_session_retires_its_previous_agent() -> None:
    host = make_host()
    root = host.create_agent()
    child = host.start_and_run(root.id, {"provider": "spawn", "prompt": "x"})
    resumed = host.resume(child.session)
    assert child.agent not in [a.id for a in host.agents()]
    assert resumed.parent == root.id and resumed.session == child.session
    kinds = [e.kind for e in host.events.events()][-2:]
    assert kinds == ["agent.retired", "agent.published"]


def planted(host: Host, descriptor: object) -> None:
    host.store.put_header("old", None, "1", descriptor)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("descriptor", "code"),
    [
        ({"provider": "gone"}, ErrorCode.NOT_RESUMABLE),
        ({"provider": "spawn", "toolFilter": {"allow": ["removed"]}}, ErrorCode.NOT_RESUMABLE),
        ({"provider": "spawn", "persona": "{{nope}}"}, ErrorCode.NOT_RESUMABLE),
        ({"provider": "spawn", "outputSchema": {"type": "string"}}, ErrorCode.NOT_RESUMABLE),
        ({"provider": "acp", "persona": "P"}, ErrorCode.UNSUPPORTED_CAPABILITY),
        ({"provider": "acp", "toolFilter": {"deny": ["a"]}}, ErrorCode.UNSUPPORTED_CAPABILITY),
        ({"persona": "P"}, ErrorCode.NOT_RESUMABLE),
    ],
)
def test_a_descriptor_that_can_no_longer_be_applied_fails_cleanly(
    descriptor: dict[str, object], code: ErrorCode
) -> None:
    host = make_host()
    host.create_agent()
    planted(host, descriptor)
    before = state(host)
    with pytest.raises(TckError) as caught:
        host.resume("old")
    assert caught.value.code is code
    assert state(host) == before


def test_the_not_resumable_error_carries_the_cause_and_offending_names() -> None:
    host = make_host()
    planted(host, {"provider": "spawn", "toolFilter": {"allow": ["removed"]}})
    with pytest.raises(TckError) as caught:
        host.resume("old")
    assert caught.value.details["cause"] == "INVALID_TOOL_FILTER"
    assert caught.value.details["offending"] == ["removed"]


def test_a_descriptor_resumes_on_a_provider_registered_again() -> None:
    host = make_host()
    host.remove_provider("spawn")
    planted(host, {"provider": "spawn", "persona": "P"})
    with pytest.raises(TckError):
        host.resume("old")
    host.add_provider(InProcessProvider("spawn"))
    agent = host.resume("old")
    assert [s.text for s in host.prompt(agent.id)] == ["P"]
    assert agent.provider == "spawn"


def test_a_provider_descriptor_without_controls_resumes_on_acp() -> None:
    host = make_host(providers=[AcpProvider()])
    planted(host, {"provider": "acp"})
    assert host.resume("old").provider == "acp"


@pytest.mark.parametrize("session", ["missing", 3, None])
def test_resuming_an_unknown_or_malformed_session_id_is_refused(session: object) -> None:
    host = make_host()
    host.create_agent()
    before = state(host)
    with pytest.raises(TckError) as caught:
        host.resume(session)  # type: ignore[arg-type]
    assert caught.value.code in (ErrorCode.UNKNOWN_SESSION, ErrorCode.INVALID_REQUEST)
    assert state(host) == before
