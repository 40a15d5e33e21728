"""What the checks read of a model request: every string the model is given, as written
(docs/rules.md#PE-04, docs/rules.md#TF-16 judge text found, or not found, in messages)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.conformance.core.protocol import Message, ModelRequest
from subagent_tck.conformance.engine.checks._observed import message_text, request_text

_TEXT = st.text(min_size=1, max_size=40)
_BLOCKS = st.recursive(
    _TEXT,
    lambda inner: st.lists(inner, min_size=1, max_size=3)
    | st.dictionaries(st.sampled_from(["type", "text", "content", "source"]), inner,
                      min_size=1, max_size=3),
    max_leaves=6,
)


def _request(content: object, system: str = "") -> ModelRequest:
    return ModelRequest(agent="a", system=system, tools=[],
                        messages=[Message(role="user", content=content)])


@given(needle=_TEXT, prefix=_TEXT, wrap=st.sampled_from(["list", "dict", "nested"]))
def test_text_inside_a_block_list_is_found_as_written_whatever_its_characters(
        needle: str, prefix: str, wrap: str) -> None:
    block = {"type": "text", "text": needle}
    content: object = {"list": [prefix, block], "dict": block,
                       "nested": [{"type": "tool_result", "content": [block]}]}[wrap]
    assert needle in message_text(_request(content))
    assert needle in request_text(_request(content))


def test_quotes_newlines_and_non_ascii_are_not_escaped_away() -> None:
    needle = 'Ünïcode "quoted"\nsecond line \\ and ✓'
    assert needle in message_text(_request([{"type": "text", "text": needle}]))


@given(content=_BLOCKS)
def test_a_message_reads_as_its_strings_in_order_and_nothing_else(content: object) -> None:
    """No key, bracket or escape of a block list is taken for text the model is given."""
    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        return [s for v in value for s in strings(v)]  # type: ignore[attr-defined]
    assert message_text(_request(content)) == "\n".join(strings(content))


def test_context_notices_and_system_text_are_read_too() -> None:
    req = ModelRequest(agent="a", system="SYS", tools=[], context=["NOTICE"],
                       messages=[Message(role="user", content=None)])
    assert "NOTICE" in message_text(req)
    assert "SYS" in request_text(req) and "NOTICE" in request_text(req)
