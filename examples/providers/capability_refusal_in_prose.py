"""A conforming target that refuses an unadvertised control in prose (BREAKS None).

Its providers advertise fewer controls (as in ``fewer_capabilities``), and its
UNSUPPORTED_CAPABILITY refusals carry no structured ``capability`` detail: the message names the
control the start asked for by its request field (``maxDepth``, not ``depthLimit``) and then
lists what the backend does offer, the way a runtime helps its caller pick another route:
"provider 'spawn' cannot honour toolFilter: this backend offers depthLimit, persona".

CA-01 asks that the refusal name the capability; it does not forbid naming the others the
provider has. A certifier that reads every capability word in the message as "the capability
named", or that knows a control only by its capability name, gives a false failure here.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import rewording_target
from examples.providers.fewer_capabilities import providers
from subagent_tck.conformance.transports.builtin import ReferenceDeployment
from subagent_tck.spec import FIELD_CAPABILITY, Capability, ErrorCode, TckError

BREAKS = None

#: The request field of each control (how this runtime's users know them).
FIELD = {capability: field for field, capability in FIELD_CAPABILITY.items()}


def in_prose(deployment: ReferenceDeployment, exc: TckError) -> TckError:
    capability, name = exc.details.get("capability"), exc.details.get("provider")
    if exc.code is not ErrorCode.UNSUPPORTED_CAPABILITY or not isinstance(capability, str):
        return exc
    bound = deployment.host.providers.get(name)
    offers = sorted(c.value for c in bound.capabilities) if bound is not None else []
    field = FIELD[Capability(capability)]
    message = (f"provider {name!r} cannot honour {field}: this backend offers "
               f"{', '.join(offers) if offers else 'no controls'}")
    return TckError(exc.code, message, {"provider": name})


def provider() -> Any:
    return rewording_target("capability-refusal-in-prose", in_prose, providers=providers)
