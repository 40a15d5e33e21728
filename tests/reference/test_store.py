from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from subagent_tck.reference import SessionStore
from subagent_tck.reference.store import depth_text
from subagent_tck.spec import ErrorCode, TckError


def test_headers_round_trip_in_creation_order(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite")
    store = SessionStore(path)
    store.put_header("s2", None, "0")
    store.put_header("s1", "s2", "1", {"provider": "spawn"})
    store.put_header("s2", None, "3")  # replacing keeps the original position
    store.close()
    again = SessionStore(path)
    assert [(h.session, h.parent, h.depth(), h.descriptor) for h in again.headers()] == [
        ("s2", None, 3, None),
        ("s1", "s2", 1, {"provider": "spawn"}),
    ]
    again.close()


def test_an_unknown_session_is_refused() -> None:
    store = SessionStore()
    with pytest.raises(TckError) as caught:
        store.header("nope")
    assert caught.value.code is ErrorCode.UNKNOWN_SESSION
    assert not store.has("nope")


@pytest.mark.parametrize(
    "text",
    ["-0", "-0.0", "NaN", "Infinity", "-1", "0.5", "true", '"1"', "null", "[]", "{}",
     "9007199254740992", "9007199254740993", "not json"],
)
def test_a_stored_depth_outside_the_domain_is_rejected_when_read(text: str) -> None:
    store = SessionStore()
    store.put_header("s", None, text)
    with pytest.raises(TckError) as caught:
        store.header("s").depth()
    assert caught.value.code is ErrorCode.INVALID_DEPTH


@pytest.mark.parametrize(
    ("text", "value"), [("0", 0), ("1.0", 1), ("1e2", 100), ("9007199254740991", 2**53 - 1)]
)
def test_a_stored_depth_in_the_domain_reads_as_javascript_would(text: str, value: int) -> None:
    store = SessionStore()
    store.put_header("s", None, text)
    assert store.header("s").depth() == value


def test_raw_depth_lists_what_is_stored_without_judging() -> None:
    store = SessionStore()
    store.put_header("a", None, "NaN")
    store.put_header("b", None, "not json")
    raw = [h.raw_depth() for h in store.headers()]
    assert raw[0] != raw[0] and raw[1] == "not json"


def test_turns_append_in_order_and_delete_with_the_session() -> None:
    store = SessionStore()
    store.put_header("s", None, "0")
    store.append_turns("s", [{"role": "user", "content": "1"}])
    store.append_turns("s", [{"role": "assistant", "content": "2"}, {"role": "user", "x": object}])
    turns = store.turns("s")
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    store.delete("s")
    assert store.turns("s") == [] and not store.has("s")


def test_depth_text_writes_json_and_refuses_what_json_cannot_hold() -> None:
    assert [depth_text(v) for v in (1, -0.0, float("nan"), True, "1")] == [
        "1", "-0.0", "NaN", "true", '"1"'
    ]
    with pytest.raises(TckError) as caught:
        depth_text(object())
    assert caught.value.code is ErrorCode.INVALID_REQUEST


def test_a_store_needs_a_path() -> None:
    with pytest.raises(TckError) as caught:
        SessionStore(3)  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.INVALID_CONFIG


def test_listing_again_without_a_write_returns_the_same_headers_and_a_write_is_seen() -> None:
    store = SessionStore()
    store.put_header("s1", None, "0")
    first = store.headers()
    assert store.headers() is first  # nothing written: not read again
    store.put_header("s2", "s1", "1")
    assert [h.session for h in store.headers()] == ["s1", "s2"]
    store.delete("s1")
    assert [h.session for h in store.headers()] == ["s2"]
    store.close()


def test_a_header_another_connection_writes_to_the_same_file_is_listed_at_once(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "sessions.db")
    mine, other = SessionStore(path), SessionStore(path)
    mine.put_header("s1", None, "0")
    assert [h.session for h in mine.headers()] == ["s1"]
    other.put_header("s2", None, "0")
    other.put_header("s1", None, "3")
    assert [(h.session, h.depth_json) for h in mine.headers()] == [("s1", "3"), ("s2", "0")]
    other.delete("s2")
    assert [h.session for h in mine.headers()] == ["s1"]
    mine.close()
    other.close()


def test_an_in_memory_store_made_after_another_closed_starts_empty_and_the_closed_one_refuses_use(
) -> None:
    first = SessionStore()
    first.put_header("s-1", None, "0", {"model": "m"})
    first.append_turns("s-1", [{"role": "user", "content": "hello"}])
    first.close()
    first.close()  # closing twice is harmless
    later = [SessionStore() for _ in range(3)]  # one of them may be given the kept connection
    for store in later:
        assert store.headers() == ()
        assert not store.has("s-1") and store.turns("s-1") == []
        store.put_header("s-2", None, "1")
        assert [h.session for h in store.headers()] == ["s-2"]
    with pytest.raises(sqlite3.ProgrammingError):
        first.has("s-1")
    for store in later:
        store.close()
