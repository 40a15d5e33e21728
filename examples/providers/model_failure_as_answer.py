"""A runtime whose model adapter turns a failed model call into an answer (breaks ST-09).

The adapter catches the error of a model call and returns it as the model's text
("Error: ..."), completed, a pattern many thin wrappers around a model API use. A child whose
model never answers then "completes" with that text, and the ``subagent`` tool hands it to the
parent as a successful result, where a run that did not complete must give an errored result,
not output as success (docs/rules.md#st-09). Every child of the fixed checks and of the old
campaign got an answer from its model. SUBTLE: the campaign's children now also get none.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.model import ModelReply

BREAKS = "ST-09"
SUBTLE = True


class SwallowingModel:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def complete(self, request: Any) -> ModelReply:
        try:
            reply: ModelReply = self.inner.complete(request)
        except Exception as exc:  # the bug: the failure becomes the answer
            return ModelReply(f"Error: {exc}")
        return reply


class SwallowingHost(Host):
    def __init__(self, model: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(SwallowingModel(model), *args, **kwargs)


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=SwallowingHost, name="model-failure-as-answer")
