"""Durable sessions in SQLite (stdlib ``sqlite3``): headers, descriptors and completed turns.

A session header holds the session id, the parent session, ``delegationDepth`` and the child's
descriptor. The depth is stored as JSON *text*, exactly as a JavaScript runtime would persist
it, so a malformed stored value can exist and must be rejected when read (DE-06):
:meth:`StoredHeader.depth` reads it with :func:`spec.read_json_number` and judges it with
:func:`spec.check_depth`. Completed turns (messages as JSON) are kept for fork and resume. The
store is a file path or ``":memory:"``; a new Host over the same file reads everything back
(cold resume, DE-09, FR-04). One connection per store, shared across threads under a lock.

An in-memory store starts as a copy of one empty database made once (SQLite's online backup):
creating the tables afresh cost more than half a millisecond, and a certification deploys
thousands of hosts. Nothing but its own connection can write it, so its header list stays
valid until it writes itself. A closed in-memory store's connection is emptied and kept for the
next one (at most :data:`_IDLE_KEPT`): a fresh connection prepares each of its statements the
first time it runs them, which was more than half of a short-lived store's time in SQLite.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from subagent_tck.spec import ErrorCode, TckError, check_depth, read_json_number

_SCHEMA = """
CREATE TABLE IF NOT EXISTS session (
    id TEXT PRIMARY KEY,
    parent TEXT,
    delegation_depth TEXT NOT NULL,
    descriptor TEXT,
    created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS turn (
    session TEXT NOT NULL,
    idx INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (session, idx)
);
"""


_EMPTY_LOCK = threading.Lock()
_EMPTY: list[sqlite3.Connection] = []
#: Emptied connections of closed in-memory stores, each with its prepared statements.
_IDLE: list[sqlite3.Connection] = []
_IDLE_KEPT = 32
#: What a closed store holds instead of its connection: using it raises as a closed one does.
_CLOSED = sqlite3.connect(":memory:", check_same_thread=False)
_CLOSED.close()


def _memory_connection() -> sqlite3.Connection:
    """An empty in-memory database with the schema: a kept one, else a new copy."""
    with _EMPTY_LOCK:
        if _IDLE:
            return _IDLE.pop()
    db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    _empty_copy(db)
    return db


def _keep_or_close(db: sqlite3.Connection) -> None:
    """Empty an in-memory connection and keep it for the next store (or close it)."""
    try:
        db.execute("DELETE FROM turn")
        db.execute("DELETE FROM session")
    except sqlite3.Error:  # in a state nobody should inherit
        db.close()
        return
    with _EMPTY_LOCK:
        if len(_IDLE) < _IDLE_KEPT:
            _IDLE.append(db)
            return
    db.close()


def _empty_copy(db: sqlite3.Connection) -> None:
    """Give the in-memory ``db`` the schema: a copy of one empty database with it."""
    with _EMPTY_LOCK:
        if not _EMPTY:
            empty = sqlite3.connect(":memory:", check_same_thread=False)
            empty.executescript(_SCHEMA)
            _EMPTY.append(empty)
        _EMPTY[0].backup(db)


def depth_text(value: object) -> str:
    """The JSON text a runtime stores for a depth value (``NaN`` stays ``NaN``)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        raise TckError(
            ErrorCode.INVALID_REQUEST,
            f"a delegation depth must be a JSON value, got {type(value).__name__}",
        ) from None


@dataclass(frozen=True)
class StoredHeader:
    """A header as stored: ``depth_json`` is raw JSON text, judged only when read."""

    session: str
    parent: str | None
    depth_json: str
    descriptor: Mapping[str, Any] | None

    def depth(self) -> int:
        """The stored delegationDepth, or INVALID_DEPTH when it is outside the domain (DE-06)."""
        try:
            value = read_json_number(self.depth_json)
        except ValueError:
            raise TckError(
                ErrorCode.INVALID_DEPTH,
                f"session {self.session}: stored delegationDepth {self.depth_json!r} is not "
                "JSON; repair the stored header with a whole number of 0 or more",
                {"session": self.session},
            ) from None
        verdict = check_depth(value)
        if verdict.value is None:
            raise TckError(
                ErrorCode.INVALID_DEPTH,
                f"session {self.session}: stored delegationDepth {self.depth_json!r}: "
                f"{verdict.advice()} (DE-06)",
                {"session": self.session},
            )
        return verdict.value

    def raw_depth(self) -> object:
        """The stored value as plain JSON parsing gives it (for listing; never judged)."""
        try:
            return json.loads(self.depth_json)
        except ValueError:
            return self.depth_json


class SessionStore:
    """Session headers and turns in one SQLite database."""

    def __init__(self, path: str = ":memory:") -> None:
        if not isinstance(path, str):
            raise TckError(
                ErrorCode.INVALID_CONFIG, "a session store needs a file path or ':memory:'"
            )
        self.path = path
        self._lock = threading.RLock()
        #: The header list as last read, with SQLite's data_version then: valid until this
        #: store writes (it drops it) or another connection commits (data_version changes;
        #: never, in memory).
        self._headers: tuple[int, tuple[StoredHeader, ...]] | None = None
        self._shared = path != ":memory:"
        if self._shared:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.executescript(_SCHEMA)
        else:
            self._db = _memory_connection()

    def close(self) -> None:
        with self._lock:
            db, self._db = self._db, _CLOSED
            self._headers = None
            if db is _CLOSED:
                return
            if self._shared:
                db.close()
            else:
                _keep_or_close(db)

    # --- headers ---------------------------------------------------------------------------

    def put_header(
        self,
        session: str,
        parent: str | None,
        depth_json: str,
        descriptor: Mapping[str, Any] | None = None,
    ) -> None:
        """Write a header as stored data, replacing one of the same id (no validation: this
        is also the seam that plants malformed stored depths, DE-06)."""
        text = None if descriptor is None else json.dumps(dict(descriptor))
        with self._lock:
            self._headers = None
            row = self._db.execute("SELECT created FROM session WHERE id = ?", (session,))
            found = row.fetchone()
            created = found[0] if found else self._next_created()
            self._db.execute(
                "INSERT OR REPLACE INTO session (id, parent, delegation_depth, descriptor, created)"
                " VALUES (?, ?, ?, ?, ?)",
                (session, parent, depth_json, text, created),
            )

    def _next_created(self) -> int:
        (value,) = self._db.execute("SELECT COALESCE(MAX(created), 0) + 1 FROM session").fetchone()
        return int(value)

    def header(self, session: str) -> StoredHeader:
        """The stored header, or UNKNOWN_SESSION."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, parent, delegation_depth, descriptor FROM session WHERE id = ?",
                (session,),
            ).fetchone()
        if row is None:
            raise TckError(
                ErrorCode.UNKNOWN_SESSION,
                f"no stored session {session!r}; list sessions to find its id",
            )
        return _header(row)

    def has(self, session: str) -> bool:
        with self._lock:
            row = self._db.execute("SELECT 1 FROM session WHERE id = ?", (session,)).fetchone()
        return row is not None

    def headers(self) -> tuple[StoredHeader, ...]:
        """Every header, oldest first. Read again only after a write (the same tuple is
        returned until then: listing is the hot path of an observer polling the store)."""
        with self._lock:
            version = self._db.execute("PRAGMA data_version").fetchone()[0] \
                if self._shared else 0
            if self._headers is not None and self._headers[0] == version:
                return self._headers[1]
            rows = self._db.execute(
                "SELECT id, parent, delegation_depth, descriptor FROM session ORDER BY created"
            ).fetchall()
            headers = tuple(_header(row) for row in rows)
            self._headers = (version, headers)
            return headers

    def delete(self, session: str) -> None:
        with self._lock:
            self._headers = None
            self._db.execute("DELETE FROM turn WHERE session = ?", (session,))
            self._db.execute("DELETE FROM session WHERE id = ?", (session,))

    # --- completed turns -------------------------------------------------------------------

    def append_turns(self, session: str, messages: list[Mapping[str, Any]]) -> None:
        """Append completed-turn messages (JSON objects) to a session, in order."""
        with self._lock:
            (start,) = self._db.execute(
                "SELECT COALESCE(MAX(idx), -1) + 1 FROM turn WHERE session = ?", (session,)
            ).fetchone()
            rows = [
                (session, start + i, json.dumps(dict(m), default=repr))
                for i, m in enumerate(messages)
            ]
            self._db.executemany("INSERT INTO turn (session, idx, message) VALUES (?, ?, ?)", rows)

    def turns(self, session: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT message FROM turn WHERE session = ? ORDER BY idx", (session,)
            ).fetchall()
        return [json.loads(text) for (text,) in rows]


def _header(row: tuple[Any, ...]) -> StoredHeader:
    session, parent, depth_json, descriptor = row
    return StoredHeader(
        session, parent, depth_json, None if descriptor is None else json.loads(descriptor)
    )
