"""The generated model names of the MO checks (docs/certify.md#generated-cases).

A model is named by a non-empty string compared exactly (docs/rules.md#MO-01, its Decision). The
names runtimes use mix vendors' spellings: dashes and dots (``claude-sonnet-4-5``,
``gpt-4.1``), a provider prefix with ``/`` (``openai/gpt-4o``), a tag after ``:``
(``qwen2.5-coder:7b``), upper case (``Llama-3.1-70B-Instruct``), dates. Drawn lists are often
*related*: a name and the same name in another case, one that extends it (``gpt-4o``,
``gpt-4o-mini``), one that is a prefix of it; a target that matches model names loosely, or
falls back to a default that happens to be drawn too, is caught there.

Never drawn: ``""`` (no name), ``inherit`` (the runtimes' word for "the parent's model") and
``subagent-tck`` (the placeholder the gateway records as no model reported,
docs/driver-api.md#model-gateway).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from hypothesis import strategies as st

#: Names the kit never gives a model (see the module's docstring).
NOT_MODEL_NAMES = frozenset({"", "inherit", "subagent-tck"})
MAX_MODEL = 64

#: Realistic names of runtimes' models, and awkward ones (case twins, prefixes, non-ASCII).
EXAMPLES = (
    "claude-sonnet-4-5", "claude-opus-4-1-20250805", "gpt-4o", "gpt-4o-mini", "GPT-4o", "o3",
    "gpt-4.1", "openai/gpt-4.1", "anthropic/claude-3-5-haiku-20241022", "qwen2.5-coder:7b",
    "meta-llama/Llama-3.1-70B-Instruct", "deepseek-chat", "gemini-2.5-pro", "模型-大",
    "m" * MAX_MODEL,
)

_SEGMENT = st.one_of(
    st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789"), min_size=1, max_size=8),
    st.text(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            min_size=1, max_size=8),
    st.text(st.characters(categories=("Lu", "Ll", "Lo", "Nd")), min_size=1, max_size=4),
)
_JOINED = st.lists(_SEGMENT, min_size=1, max_size=4).flatmap(
    lambda parts: st.lists(st.sampled_from("-.:_"), min_size=len(parts) - 1,
                           max_size=len(parts) - 1).map(
        lambda seps: parts[0] + "".join(s + p for s, p in zip(seps, parts[1:], strict=True))))
_PREFIXED = st.tuples(_SEGMENT, _JOINED).map(lambda t: f"{t[0]}/{t[1]}")
_MODEL = st.one_of(st.sampled_from(EXAMPLES), _JOINED, _PREFIXED).map(
    lambda name: name[:MAX_MODEL]).filter(lambda name: name not in NOT_MODEL_NAMES)


def model_name() -> st.SearchStrategy[str]:
    """One model name: a realistic example or a drawn one of the vendors' spellings."""
    return _MODEL


def relatives(name: str) -> list[str]:
    """Names that look like ``name``: another case, an extension, a prefix."""
    options = [name.swapcase(), name.upper(), name.lower(), name + "-mini", name + ".1",
               name + ":latest", *(name[:k] for k in range(1, len(name)))]
    return [o[:MAX_MODEL] for o in dict.fromkeys(options)
            if o[:MAX_MODEL] != name and o[:MAX_MODEL] not in NOT_MODEL_NAMES]


@st.composite
def model_names(draw: Any, min_size: int = 1, max_size: int = 4,
                avoid: Collection[str] = ()) -> list[str]:
    """Distinct model names, not in ``avoid``, often related to each other."""
    size = draw(st.integers(min_size, max_size))
    out: list[str] = []
    for _ in range(3 * size + 4):
        if len(out) >= size:
            break
        kin = relatives(out[draw(st.integers(0, len(out) - 1))]) if out else []
        name = draw(st.sampled_from(kin)) if kin and draw(st.booleans()) else draw(model_name())
        if name not in out and name not in avoid:
            out.append(name)
    counter = 0
    while len(out) < min_size:  # rare: every draw collided
        counter += 1
        if f"model-{counter}" not in out and f"model-{counter}" not in avoid:
            out.append(f"model-{counter}")
    return out
