"""Fuzz: differential testing of a target against the executable spec (docs/architecture.md).

A Hypothesis state machine (:mod:`.machine`) drives one deployment of a target and the spec
oracle (:mod:`.model`) in lockstep (:mod:`.lockstep`, :mod:`.operations`, :mod:`.children`,
:mod:`.sessions`) over random sequences of driver operations, with depth values drawn as raw
JSON text (:mod:`.strategies`). The first divergence names the rule it breaks (:mod:`.rulemap`),
is shrunk (:mod:`.shrink`) and saved as a replayable file (:mod:`.replay`). :mod:`.campaign` runs
it within budgets; :mod:`.command` is ``subagent-tck fuzz``. See ``docs/fuzz.md``.

Imports only :mod:`subagent_tck.spec` and :mod:`subagent_tck.conformance`; nothing imports fuzz
except the command line, lazily.
"""

from .campaign import PROFILES, CampaignResult, Profile, replay, run_campaign
from .database import DEFAULT_DATABASE
from .lockstep import Lockstep
from .lockstep_core import Setup
from .machine import FuzzMachine, machine_for
from .replay import ReplayFile, load_replay
from .step import Divergence, Finding, Step

__all__ = [
    "DEFAULT_DATABASE", "PROFILES", "CampaignResult", "Divergence", "Finding", "FuzzMachine",
    "Lockstep", "Profile", "ReplayFile", "Setup", "Step", "load_replay", "machine_for",
    "replay", "run_campaign",
]
