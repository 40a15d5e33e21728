"""Drive one deployment of a target and the spec oracle in lockstep, one :class:`Step` at a time.

:class:`Lockstep` owns a fresh deployment, the :class:`~.model.DeploymentModel` and the map
from the fuzzer's labels to the target's ids. :meth:`Lockstep.apply` runs one step on both sides
and compares what can be observed, raising :class:`~.step.Divergence` at the first difference:

- accept or refuse, and the error code (TF-06..TF-08, TF-14, CA, DE, EN, FR-03, PE-05);
- after every change, views as sets of ``(name, origin)`` without duplicate names: of the
  changed scope, the global view and other agents (after a registry change: the first agent and
  the three newest; a later read or change of any scope compares its view then), and the wire
  schemas and SDK bindings against the view (TF-01..TF-06, TF-09..TF-14);
- after every refusal, that nothing changed: sessions, agents, events, model requests and tool
  invocations (TF-07, TF-08, DE-04, CA-02, FR-03);
- for a start: the child's depth and header (DE-01, DE-02), its published snapshot (FR-02), its
  first model request (FR-01, PE-01..PE-05, EN-01, EN-03) and the parent's prompt (PE-01).

The operations themselves live in :mod:`.operations`; the set-up and the deployment in
:mod:`.lockstep_core`, and the comparisons in :mod:`.lockstep_refusals` (a refusal, the outcome),
:mod:`.lockstep_views` (views, schemas, SDK) and :mod:`.lockstep_prompts` (prompts, requests):
:class:`Lockstep` joins them.
"""

from __future__ import annotations

from .lockstep_prompts import PromptChecks
from .lockstep_refusals import RefusalChecks


class Lockstep(PromptChecks, RefusalChecks):
    """One deployment of ``target`` and its model, compared after every step."""
