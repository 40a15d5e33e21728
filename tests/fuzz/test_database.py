"""The example database a campaign shares (fuzz/database.py): keyed by target, its change events
passed on for that target only, a Redis URL that cannot be reached refused with the fix."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis.database import DirectoryBasedExampleDatabase, InMemoryExampleDatabase

from subagent_tck.fuzz.database import (
    DatabaseGone,
    KeyedDatabase,
    guarded,
    key_prefix,
    open_database,
    parse_database,
)
from subagent_tck.spec import ErrorCode, TckError


def test_targets_sharing_a_store_keep_their_own_findings() -> None:
    inner = InMemoryExampleDatabase()
    one, two = KeyedDatabase(inner, key_prefix("one")), KeyedDatabase(inner, key_prefix("two"))
    one.save(b"k", b"found")
    assert list(one.fetch(b"k")) == [b"found"] and list(two.fetch(b"k")) == []
    two.delete(b"k", b"found")  # another target's conforming run deletes nothing of one's
    assert list(one.fetch(b"k")) == [b"found"]
    one.move(b"k", b"k.secondary", b"found")
    assert list(one.fetch(b"k.secondary")) == [b"found"] and list(one.fetch(b"k")) == []


def test_change_events_reach_a_listener_for_its_target_only_without_the_prefix() -> None:
    inner = InMemoryExampleDatabase()
    mine, other = KeyedDatabase(inner, key_prefix("mine")), KeyedDatabase(inner, key_prefix("x"))
    heard: list[Any] = []
    mine.add_listener(heard.append)
    mine.save(b"corpus", b"1")
    other.save(b"corpus", b"2")
    mine.delete(b"corpus", b"1")
    assert heard == [("save", (b"corpus", b"1")), ("delete", (b"corpus", b"1"))]
    mine.remove_listener(heard.append)
    mine.save(b"corpus", b"3")
    assert len(heard) == 2


def test_a_directory_is_a_directory_database(tmp_path: Any) -> None:
    assert isinstance(parse_database(str(tmp_path / "db")), DirectoryBasedExampleDatabase)
    assert open_database(None, "t") is None


@pytest.mark.parametrize("url", ["redis://127.0.0.1:1/0", "redis://[bad"])
def test_a_redis_that_cannot_be_reached_is_a_usage_error_naming_the_fix(url: str) -> None:
    with pytest.raises(TckError) as refused:
        parse_database(url)
    assert refused.value.code is ErrorCode.USAGE
    assert "redis" in refused.value.message


def test_a_store_that_stops_answering_is_database_gone_and_other_errors_pass() -> None:
    def gone() -> None:
        raise ConnectionRefusedError("refused")

    with pytest.raises(DatabaseGone, match="stopped answering"):
        guarded(gone, "redis://h:1/0")
    with pytest.raises(KeyError):
        guarded(lambda: {}["x"], "redis://h:1/0")
