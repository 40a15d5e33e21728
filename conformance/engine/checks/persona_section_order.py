"""PE-01 over drawn deployment sections: the persona's place does not depend on section names.

``persona-child-shadow`` (:mod:`.persona`) deploys one fixed section, ``house:rules``, whose name
sorts after ``deployment:persona-prefix``: a runtime that places sections by comparing names
(``name < PERSONA_SECTION`` goes first) or by sorting them passes it. Here the deployment's
sections get drawn names (docs/certify.md#generated-cases), always including names that sort
before the persona's, a case twin of it, a prefix and an extension of it, so the parent's prompt
must be the persona and then the sections in the order the deployment gave them
(``DeploymentConfig.sections``: "after the persona, in order", docs/driver-api.md), and the
child's prompt must carry its persona exactly where the deployment persona stood
(docs/rules.md#pe-01), the rest unchanged.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import PERSONA_SECTION, Capability

from ...core.protocol import SectionSpec
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, deployment_sections, expected_sections
from ._framed import prompt_agrees
from ._observed import as_pairs, sections_of
from ._starts import capable, composition, judge, oracle_accepts, provider_name, start_request

RULE = "PE-01"
GLOBALS = ("read", "write", "search")
CHILD_PERSONA = "CHILD-PERSONA: review the change."
NO_PERSONA = "the provider does not advertise persona (CA-01 decides that it refuses one)"

#: Hand-written names that run at every seed: before the persona's name in every ordering a
#: runtime might use (byte order, case-folded, length), its case twin, a prefix of it, an
#: extension of it, non-ASCII, and one after it.
EXAMPLES: tuple[tuple[str, ...], ...] = (
    ("agents:guide", "house:rules"),
    # (a prefix other than ``deployment:persona``, the name DSH gives its own persona section)
    ("a", "Deployment:persona-prefix", "deployment:person"),
    ("deployment:persona-prefix-2", "Zeta", "développeur:guide"),
)

_NAME_CHARS = st.characters(categories=("Lu", "Ll", "Lo", "Nd"), include_characters=":-_. ")
#: A section name: any non-empty string a deployment might use, often ``namespace:name``, often
#: close to the persona's own name (docs/rules.md#pe-01 names the persona section).
SECTION_NAME = st.one_of(
    st.text(_NAME_CHARS, min_size=1, max_size=24),
    st.tuples(st.text(_NAME_CHARS, min_size=1, max_size=10),
              st.text(_NAME_CHARS, min_size=1, max_size=10)).map(":".join),
    st.sampled_from([PERSONA_SECTION.upper(), PERSONA_SECTION.capitalize(),
                     PERSONA_SECTION[:-1], PERSONA_SECTION + "s", "deployment:", "deployment"]),
).filter(lambda n: n.strip() != "" and n != PERSONA_SECTION)


def _sections(names: tuple[str, ...] | list[str]) -> list[SectionSpec]:
    # Brace-free texts render as themselves; each says which section it is.
    return [SectionSpec(name=n, text=f"SECTION-{i}: rules of part {i}.")
            for i, n in enumerate(names)]


SECTION_ORDER = (
    Partition(RULE, "namespaced-names", "sections named namespace:name"),
    Partition(RULE, "persona-name-lookalikes", "sections named like the persona section: "
              "another case, a prefix, a name sorted before it"),
    Partition(RULE, "extensions-and-non-ascii", "an extension of the persona section's name, "
              "a capital, non-ASCII"),
)


@check(RULE, name="persona-section-order", partitions=SECTION_ORDER)
def section_order(ctx: CheckContext) -> None:
    """With deployment sections of drawn names, the parent's prompt is the persona and then the
    sections in the deployment's order, and a child's persona stands where the deployment
    persona stood."""
    if not capable(ctx.provider, Capability.PERSONA):
        ctx.skip(RULE, NO_PERSONA)
        return
    comp = composition(ctx.edition, {"persona": CHILD_PERSONA}, "child")

    def case(names: tuple[str, ...] | list[str]) -> None:
        cfg = config(ctx.edition, tools=GLOBALS, presets=comp.presets).model_copy(
            update={"sections": _sections(names)})
        dep = ctx.deploy(cfg)
        root = dep.root().agent
        want_root = as_pairs(deployment_sections(cfg))
        got_root = sections_of(dep, root)
        ctx.expect(RULE, prompt_agrees(ctx, got_root, deployment_sections(cfg), "root"),
                   f"the top-level agent's prompt is the persona, then the sections "
                   f"{list(names)!r} in the deployment's order", want_root, got_root)
        request = start_request(root, provider_name(ctx), "child task", comp.fields)
        outcome = judge(ctx, cfg, GLOBALS, request)
        oracle_accepts(outcome, "child start")
        with ctx.step(RULE, "starting a child with a persona"):
            child = dep.start(request)
        want_child = as_pairs(expected_sections(cfg, outcome))
        got_child = sections_of(dep, child.agent)
        ctx.expect(RULE, prompt_agrees(ctx, got_child, expected_sections(cfg, outcome)),
                   f"the child's persona stands where the deployment persona stood, before the "
                   f"sections {list(names)!r}", want_child, got_child)

    for names, part in zip(EXAMPLES, SECTION_ORDER, strict=True):
        case(names)
        ctx.drew(RULE, part.name)

    def drawn(names: Any) -> None:
        case(names)

    ctx.for_all(st.lists(SECTION_NAME, min_size=1, max_size=5, unique=True), drawn)
