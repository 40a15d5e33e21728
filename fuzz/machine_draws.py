"""The driver operations a step draws, each choosing its arguments from its slice of code.

One method per operation of :data:`.machine.OPERATIONS`: a global or scope-local tool registered
or removed, a restriction installed or disposed, a spawn policy installed or disposed, a mode
change, a read, a run_code program, an agent created, a child started, the ``subagent`` tool's
component (a load, a call...), a session resumed with or without a planted header. Each reads
what it needs from a :class:`~.code.Code` and applies the step; how often each choice is made is
what these draws decide (agents, restrictions and sessions are small numbers taken modulo what
exists).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from subagent_tck.spec import (
    PROVIDER_MANAGED,
    RUN_CODE,
    Capability,
    Edition,
    PresentationMode,
    StopReason,
)

from . import strategies as fs
from .code import Code
from .machine_base import MachineBase
from .subagent import tools
from .tool_calls import REPLIES

MODES = tuple(m.value for m in PresentationMode)
_READS = ("view", "global-view", "schemas", "sdk", "lookup", "execute", "prompt", "headers")


class Draws(MachineBase):
    """The operations of a step (the machine's rules call them: :class:`.machine.FuzzMachine`)."""

    # --- the operations -----------------------------------------------------------------

    def global_tool(self, c: Code) -> None:
        assert self.lock is not None
        if c.take(3) == 2:  # mostly a registered name, so that the removal happens
            self._apply("unregister_global", name=_name(c, self.lock.model.globals, self.names))
        else:
            self._apply("register_global", name=c.choose(self.names))

    def local_tool(self, c: Code) -> None:
        assert self.lock is not None
        agent = self._agent(c.take(8))
        if c.take(3) == 2:  # mostly one of the scope's own locals
            local = self.lock.model.agents[agent].scope.locals
            self._apply("unregister_local", agent=agent, name=_name(c, local, self.names))
        else:  # half the time the name of a global, which the local then shadows (TF-05)
            name = _name(c, self.lock.model.globals, self.names) if c.take(2) else c.choose(
                self.names)
            self._apply("register_local", agent=agent, name=name)

    def restrict(self, c: Code) -> None:
        assert self.lock is not None
        agent = self._agent(c.take(8))
        value = fs.pick_restriction(c, self.lock.model.globals, self.lexicon.extra_names)
        label = self.lock.model.new_label(f"{agent}.r")
        self._apply("restrict", agent=agent, value=value, label=label)

    def dispose(self, c: Code) -> None:
        assert self.lock is not None
        label = self._agent(c.take(8))
        scope = self.lock.model.agents[label].scope
        installed = [label for label in scope.restrictions if label in scope.issued]
        if installed and c.take(4):  # mostly the newest installed one
            handle = installed[-1]
        else:  # any issued (perhaps disposed already) or a forged one (TF-14)
            issued = [*scope.issued, f"{label}.forged"]
            handle = issued[c.take(16) % len(issued)]
        self._apply("dispose", agent=label, restriction=handle)

    def policies(self) -> tuple[str, ...]:
        """The preset names a spawn policy lists: the deployment's, and names that are none of
        them (the missing preset, a case variant of the first)."""
        words = self.lexicon
        return (*words.presets, words.captain, words.mini)

    def spawn_policy(self, c: Code) -> None:
        """A spawn policy installed on a scope (mostly), or one disposed (SP-01)."""
        assert self.lock is not None
        agent = self._agent(c.take(8))
        issued = sorted(self.lock.model.agents[agent].policies_issued)
        if issued and c.take(4) == 0:
            self._apply("dispose_policy", agent=agent, policy=c.choose(issued))
            return
        words = self.lexicon
        value = fs.pick_restriction(c, self.policies(),
                                    (words.missing, words.presets[0].swapcase()))
        self._apply("install_policy", agent=agent, value=value,
                    label=self.lock.model.new_label(f"{agent}.p"))

    def set_mode(self, c: Code) -> None:
        self._apply("set_mode", agent=self._agent(c.take(8)), mode=c.choose(MODES))

    def observe(self, c: Code) -> None:
        """A read (the lockstep also reads views and presentation after every change)."""
        kind, agent = c.choose(_READS), self._agent(c.take(8))
        name = c.choose((*self.names, *self.lexicon.forged_names))
        if kind == "headers":
            self._apply("headers")
        elif kind == "global-view":
            self._apply("view", agent=None)
        elif kind in ("lookup", "execute"):
            self._apply(kind, agent=agent, name=name)
        else:
            self._apply(kind, agent=agent)

    def run_code(self, c: Code) -> None:
        """A run_code program of one to four SDK calls (TF-12): names the scope sees, globals
        it may not see, its locals, ``run_code`` itself, names never registered and case
        variants of visible ones."""
        assert self.lock is not None
        agent = self._agent(c.take(8))
        model = self.lock.model.agents[agent]
        visible = [e.name for e in self.lock.model.view(model)]
        pools: tuple[Sequence[str], ...] = (
            visible, self.lock.model.globals, model.scope.locals, (RUN_CODE,),
            (*self.lexicon.register_names, *self.lexicon.forged_names),
            [n.swapcase() for n in visible], self.names)
        names = []
        for _ in range(1 + c.take(4)):
            # never a subagent tool: a program calling one could start a child
            pool = [n for n in pools[c.take(len(pools))] if n not in self.tool_names]
            names.append(c.choose(pool or self.names))
        self._apply("run_code", agent=agent, names=names)

    def create_agent(self, c: Code) -> None:
        assert self.lock is not None
        header = fs.pick_header(c)
        # a runtime depth half the time, then mostly a small valid one, so that header and
        # runtime depths both count and either may be the larger (DE-02)
        runtime = fs.pick_header(c) if c.take(2) == 1 else None
        self._apply(
            "create_agent", header={"json": header.text},
            runtime=None if runtime is None else {"json": runtime.text},
            label=self.lock.model.new_label("a"),
        )

    def start(self, c: Code) -> None:
        assert self.lock is not None
        parent = self._agent(c.take(8))
        names = [p.name for p in self.info.providers]
        # one start in sixteen asks for a provider no target ships (CA-05)
        provider = self._nowhere(names) if c.take(16) == 15 else c.choose(names)
        controls: dict[str, Any] = {}
        max_depth = fs.pick_optional_depth(c, absent_in=2)
        if max_depth is not None:
            controls["maxDepth"] = {"json": max_depth.text}
        preset = c.choose((None, None, None, *self.lexicon.presets, self.lexicon.missing,
                           self.lexicon.captain, self.lexicon.mini))
        if preset is not None:
            controls["preset"] = preset
        # the newer controls (SP-01, MO-01), mostly where a provider advertises them; one start
        # in sixteen elsewhere, so that their refusal is judged too (CA-01)
        advertised = self.lock.advertised
        if c.take(4 if Capability.SPAWN_POLICY in advertised else 16) == 0:
            words = self.lexicon
            controls["spawnPolicy"] = fs.pick_restriction(
                c, self.policies(), (words.missing, words.presets[0].swapcase()))
        if c.take(3 if Capability.MODEL_SELECTION in advertised else 16) == 0:
            controls["model"] = c.choose((*self.lexicon.models, "", None))
        persona = fs.pick_persona(c, self.lexicon.request_personas())
        tool_filter = fs.pick_restriction(
            c, self.lock.model.globals, self.lexicon.extra_names) if c.take(3) == 1 else None
        output_schema = fs.pick_output_schema(c)
        # request persona/toolFilter are refused in the preset edition (EN-02): send them
        # there one time in four, so that most starts get further
        if self.lock.setup.edition is Edition.REQUEST_CONTROLS or c.take(4) == 1:
            if persona is not fs.OMIT:
                controls["persona"] = persona
            if tool_filter is not None:
                controls["toolFilter"] = tool_filter
        if output_schema is not fs.OMIT:
            controls["outputSchema"] = output_schema
        # one start in four: the child's model changes the registry at its first request
        # and asks for a tool call, so that its second request shows the change (FR-05)
        extra: dict[str, Any] = {}
        if c.take(4) == 0:
            if c.take(2) and self.lock.model.globals:
                extra["change"] = {"unregister": _name(c, self.lock.model.globals, self.names)}
            else:
                extra["change"] = {"register": c.choose(self.names)}
        self._apply("start", parent=parent, provider=provider, controls=controls,
                    label=self.lock.model.new_label("c"), **extra)

    def subagent_tool(self, c: Code) -> None:
        """The ``subagent`` tool's component (:mod:`.subagent`, :mod:`.tool_calls`): a load
        (its name, provider, cap and controls drawn), an unload, a provider removed or added
        again, the host depth, a call, or a descriptor rebound."""
        assert self.lock is not None
        providers = [p.name for p in self.info.providers]
        model = tools(self.lock)
        kind = c.take(11)  # 0-1 a load, 2 an unload, 3 a provider, 4 the host depth,
        loaded = list(model.loads)  # 5-6 a rebind, 7-10 a call
        # an unload mostly names a loaded tool; a load mostly a new or loaded name
        name = c.choose(loaded) if loaded and kind >= 2 and c.take(4) else c.choose(self.tool_names)
        provider = c.choose(providers)
        if kind <= 1:
            self._load(c, name, provider)
        elif kind == 2:
            self._apply("unload_tool", name=name)
        elif kind == 3:
            # mostly a provider back once one is gone (ST-02: re-added in any order)
            gone = [p for p in providers if p not in model.present]
            if gone and c.take(3):
                provider = c.choose(gone)
            op = "remove_provider" if provider in model.present else "add_provider"
            self._apply(op, provider=provider)
        elif kind == 4:
            self._apply("set_host_depth", depth=c.take(4))
        elif kind in (5, 6) and len(self.lock.model.sessions) > 1:
            # mostly a child's session: only a composed descriptor can be rebound (CA-01)
            composed = [label for label, s in self.lock.model.sessions.items() if s.composed]
            session = (c.choose(composed) if composed and c.take(4)
                       else self._session(c.take(8)))
            self._apply("rebind", session=session, provider=provider,
                        label=self.lock.model.new_label("r"))
        else:
            self._call(c, name)

    def _load(self, c: Code, name: str, provider: str) -> None:
        """A load: ``maxDepth`` unset, ``'provider-managed'`` or any JSON depth; in the
        request-controls edition one load in two with a persona, one in two with a toolFilter
        (docs/rules.md#EN-03; one in twelve each in the other edition, which may refuse them
        at load); one in four with agentOptions."""
        assert self.lock is not None
        choice = c.take(4)
        args: dict[str, Any] = {"name": name, "provider": provider, "max_depth": (
            None if choice == 0 else PROVIDER_MANAGED if choice == 1
            else {"json": fs.pick_header(c).text})}
        odds = 2 if self.lock.setup.edition is Edition.REQUEST_CONTROLS else 12
        if c.take(odds) == 0:  # null, or the empty persona (PE-03) twice as often as another
            args["persona"] = c.choose((None, "", "", *self.lexicon.request_personas()))
        if c.take(odds) == 0:
            args["tool_filter"] = fs.pick_restriction(c, self.lock.model.globals,
                                                      self.lexicon.extra_names)
        if c.take(4) == 0:
            args["agent_options"] = c.choose(fs.agent_options(self.lexicon.title.lower()))
        self._apply("load_tool", **args)
        # a load with controls is mostly called at once: what its controls compose is seen in
        # the child's first request (EN-03), which a later call meets only by chance
        if ("persona" in args or "tool_filter" in args) and c.take(3):
            self._call(c, name, chosen=True)

    def _call(self, c: Code, name: str, chosen: bool = False) -> None:
        """A call of a tool the caller sees three times in four; its child answers with a
        drawn stop reason, nothing, no answer at all, or a stall the caller's abort ends, and
        one call in four aborts the caller's turn while the child waits (ST-09)."""
        assert self.lock is not None
        agent = self._agent(c.take(8))
        # one call in three from an agent whose durable depth was rewritten under it, when one
        # is live: a depth that changed under the same cap (ST-07)
        moved = [a.label for a in self.lock.model.agents.values()
                 if self.lock.model.sessions[a.session].rewritten]
        if moved and c.take(3) == 0:
            agent = c.choose(moved)
        if chosen:  # ``name``, by an agent that sees it when one does
            model = self.lock.model
            seeing = [a.label for a in model.agents.values() if name in model.wire(a)]
            viewing = [a.label for a in model.agents.values()
                       if any(e.name == name for e in model.view(a))]
            if seeing:
                agent = c.choose(seeing)
            elif viewing:  # offered through run_code only (ptc): the caller's mode changes
                agent = c.choose(viewing)
                self._apply("set_mode", agent=agent, mode=c.choose(("native", "both")))
        caller = self.lock.model.agents[agent]
        offered = [n for n in tools(self.lock).loads if n in self.lock.model.wire(caller)]
        if chosen:
            pass
        elif offered and c.take(4):
            name = c.choose(offered)
        elif not offered and c.take(2):  # nothing to call yet: mostly a load instead
            self._load(c, name, c.choose([p.name for p in self.info.providers]))
            return
        stop = c.choose((*([StopReason.COMPLETED.value] * 4), *(r.value for r in StopReason)))
        reply = c.choose(("output", "output", "output", *REPLIES))
        args: dict[str, Any] = {"stop": stop}
        if reply != "output":
            args["reply"] = reply
        elif c.take(4) == 0:
            args["abort"] = True
        self._apply("call_tool", agent=agent, name=name, **args)

    def resume(self, c: Code) -> None:
        """Cold-resume a session, after writing its stored header depth one time in two
        (DE-06, DE-09); one time in four, write the stored depth of a live agent's session
        and resume nothing: its durable depth changes under the same cap (DE-02, ST-07)."""
        assert self.lock is not None
        session, label = self._session(c.take(8)), self.lock.model.new_label("r")
        choice = c.take(4)
        if choice == 0:
            self._apply("resume", session=session, label=label)
            return
        depth = {"json": fs.pick_header(c).text}
        if choice == 1:
            # the session of an agent drawn as a caller is (root mostly), mostly at a depth
            # one below, at or one above the host depth setting: a call from it is then
            # below or at the live cap (ST-06, ST-07); else any depth of the domain
            agent = self.lock.model.agents[self._agent(c.take(8))]
            host = tools(self.lock).host_depth if self.lock.subagent_tools else 1
            near = str(max(0, host + c.take(3) - 1))
            depth = {"json": fs.pick_header(c).text if c.take(4) == 0 else near}
            self._apply("rewrite", session=agent.session, depth=depth)
        else:
            self._apply("plant", session=session, depth=depth, label=label)


def _name(c: Code, present: list[str], names: Sequence[str]) -> str:
    """One of ``present`` that is one of ``names`` three times in four (when there are any),
    else any of ``names`` (never a subagent tool's: those come and go with their loads)."""
    present = [n for n in present if n in names]
    if present and c.take(4):
        return c.choose(present)
    return c.choose(names)
