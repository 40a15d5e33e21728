"""A live agent: its scope, its session, its depths and its conversation (DE-01, DE-02).

``model`` is the model its requests name: the deployment's for a top-level agent, the composed
one or its parent's for a child (MO-01). ``depth`` is the validated durable header depth;
``runtime_depth`` is the raw runtime ``subagentDepth`` (or :data:`spec.ABSENT`), validated at
every start from this agent (DE-07).
An agent is observable (in lookups, session lists, events) only once ``published`` (FR-02).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from subagent_tck.spec import ABSENT

from .model import Message
from .scope import Scope


@dataclass(eq=False)
class Agent:
    id: str
    session: str
    scope: Scope
    depth: int = 0
    runtime_depth: object = ABSENT
    parent: str | None = None
    provider: str | None = None
    messages: list[Message] = field(default_factory=list)
    published: bool = False
    #: What the child handed to its ``structured_output`` tool, if anything.
    structured_output: Any = None
    #: Number of messages already persisted as completed turns.
    persisted: int = 0
    #: The model every request of this agent names (MO-01; None: none named).
    model: str | None = None
