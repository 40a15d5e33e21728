"""The example database a campaign shares with other workers: a directory or a Redis server.

Hypothesis keeps every failing example (and HypoFuzz its covering corpus) in an example database;
a worker that opens the same one replays what any other found before it searches anew
(docs/fuzz.md#spreading-a-campaign-over-cores-and-machines). :func:`parse_database` reads the
``--database`` text: a directory (the default, ``.subagent-tck/fuzz-db``: one machine, any number
of processes) or ``redis://HOST:PORT/DB`` (several machines, through
:class:`hypothesis.extra.redis.RedisExampleDatabase`; the ``redis`` package comes with the
``hypofuzz`` and ``redis`` extras). :func:`open_database` keys it by target, so that targets
sharing one store keep their own findings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from subagent_tck.spec import ErrorCode, TckError

DEFAULT_DATABASE = os.path.join(".subagent-tck", "fuzz-db")
#: Part of every database key: bump when the machine's rules change meaning.
MACHINE_VERSION = "1"
#: Where a campaign saves the steps of each divergence it sees (a replay file's JSON), after the
#: machine's key: any campaign sharing the database replays them from there, whatever its
#: process or machine (fuzz/hypofuzz_target.py, fuzz/campaign.py).
DIVERGENCE_SUFFIX = b".subagent-tck.divergences"
#: How long a Redis command may take before the database counts as gone (seconds).
REDIS_TIMEOUT = 5.0
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
#: The command that serves a shared database on one machine of the fleet (docs/fuzz.md).
REDIS_COMMAND = "redis-server --port 6379 --bind 0.0.0.0 --protected-mode no --save ''"


class DatabaseGone(Exception):
    """The shared database stopped answering (a Redis server that went away)."""


class KeyedDatabase(ExampleDatabase):
    """Prefixes every key with the target's identity, so targets sharing a store keep their
    own findings (and a conforming target never deletes another's). Change events of the
    inner database are passed on for this prefix only, with the prefix taken off (HypoFuzz's
    workers listen for each other's corpus through them)."""

    def __init__(self, inner: ExampleDatabase, prefix: bytes) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = prefix

    def __repr__(self) -> str:
        return f"KeyedDatabase({self.inner!r}, {self.prefix!r})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, KeyedDatabase) and self.inner == other.inner
                and self.prefix == other.prefix)

    def __hash__(self) -> int:
        return hash(self.prefix)

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self.prefix + key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(self.prefix + key)

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self.prefix + src, self.prefix + dest, value)

    def _start_listening(self) -> None:
        self.inner.add_listener(self._relay)

    def _stop_listening(self) -> None:
        self.inner.remove_listener(self._relay)

    def _relay(self, event: Any) -> None:
        kind, (key, value) = event
        if isinstance(key, bytes) and key.startswith(self.prefix):
            self._broadcast_change((kind, (key[len(self.prefix):], value)))


def is_redis(text: str) -> bool:
    return text.startswith(REDIS_SCHEMES)


def parse_database(text: str) -> ExampleDatabase:
    """The database ``--database TEXT`` names: ``redis://...`` (a reachable Redis server, else
    a USAGE error naming the command that starts one) or a directory."""
    if not is_redis(text):
        return DirectoryBasedExampleDatabase(text)
    try:
        from hypothesis.extra.redis import RedisExampleDatabase
        from redis import Redis
        from redis.exceptions import RedisError
    except ImportError:
        raise TckError(ErrorCode.USAGE, f"--database {text} needs the redis package: pip "
                       "install 'subagent-tck[redis]'") from None
    try:
        client = Redis.from_url(text, socket_timeout=REDIS_TIMEOUT,
                                socket_connect_timeout=REDIS_TIMEOUT)
        client.ping()
    except ValueError as exc:
        raise TckError(ErrorCode.USAGE, f"--database {text} is not a Redis URL ({exc}): give "
                       "redis://HOST:PORT/DB") from None
    except (RedisError, OSError) as exc:
        raise TckError(ErrorCode.USAGE, f"cannot reach the example database at {text} "
                       f"({type(exc).__name__}: {exc}): start it on its machine with "
                       f"`{REDIS_COMMAND}` (docs/fuzz.md#many-machines)") from None
    return RedisExampleDatabase(client)


def open_database(
    database: str | os.PathLike[str] | ExampleDatabase | None, target_id: str
) -> ExampleDatabase | None:
    """The example database for ``target_id``: a directory path, a ``redis://`` URL or a
    Hypothesis database (for example a :class:`~hypothesis.database.MultiplexedDatabase`);
    None: no database."""
    if database is None:
        return None
    inner = (database if isinstance(database, ExampleDatabase)
             else parse_database(os.fspath(database)))
    return KeyedDatabase(inner, key_prefix(target_id))


def key_prefix(target_id: str) -> bytes:
    return f"subagent-tck-fuzz/{MACHINE_VERSION}/{target_id}/".encode()


def guarded(action: Callable[[], Any], where: str) -> Any:
    """``action()``, a :class:`DatabaseGone` when the database stopped answering."""
    try:
        return action()
    except OSError as exc:
        raise DatabaseGone(f"the example database {where} stopped answering "
                           f"({type(exc).__name__}: {exc})") from None
    except Exception as exc:
        if type(exc).__module__.startswith("redis"):
            raise DatabaseGone(f"the example database {where} stopped answering "
                               f"({type(exc).__name__}: {exc})") from None
        raise
