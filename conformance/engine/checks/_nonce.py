"""Per-case nonces for scripted model replies (docs/rules.md: a case passes on what its rule
observes, never on text a target could produce by echoing what the kit sent it).

A nonce is drawn from the run's seed, the check and the case, so a run is reproducible, and it
appears only in the scripted reply: the kit never sends it in a prompt, a persona or a tool
argument, so finding it in a tool result proves the child's reply came back.
"""

from __future__ import annotations

import random

from ..check import CheckContext


def nonce(ctx: CheckContext, case: str) -> str:
    """A token no target can produce except by passing on the scripted reply that carries it."""
    draw = random.Random(f"{ctx.seed}:{ctx.check.name}:{ctx.provider and ctx.provider.name}:{case}")
    return f"N{draw.getrandbits(64):016x}"
