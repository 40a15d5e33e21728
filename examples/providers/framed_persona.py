"""A conforming target that frames its children's system prompts (BREAKS None).

Claude Code puts text of its own around an agent definition's body: a billing header, "You
are a Claude agent, built on Anthropic's Claude Agent SDK.", and notes for agent threads after
it. The catalogue's persona rules ask for the composed persona in the system text; they do not
forbid a runtime's own text around it. This target frames every child's system text so
(``examples/providers/_frames.py``) and declares the frame (docs/driver-api.md#dialect): the
persona and first-request rules then judge the text inside the frame, exactly, and it
certifies. Its broken siblings drop the persona inside the frame, swap in another agent's, or
leave a placeholder raw, and fail.
"""

from __future__ import annotations

from typing import Any

from examples.providers._frames import FramedTarget

BREAKS = None


def provider() -> Any:
    return FramedTarget(name="framed-persona")
