// The host runtime of one deployment: its live global registry, providers, presets, prompt
// sections, session store, event log and published agents. Everything a driver operation
// reads or changes goes through here; delegation (start, resume), the agent loop and the
// subagent tool component are separate modules that use it.

import { Agent, requireModel } from './agent.mjs';
import { effectiveDepth, isDepth, requireDepth } from './depth.mjs';
import { Code, TckError } from './errors.mjs';
import { EventLog, Kind } from './events.mjs';
import { assembleSections, PERSONA_SECTION, systemText } from './prompt.mjs';
import { ProviderRegistry } from './providers.mjs';
import { Registry } from './registry.mjs';
import { Resolver, runCode } from './resolver.mjs';
import { Scope } from './scope.mjs';
import { SessionStore } from './store.mjs';
import { render } from './template.mjs';
import { echoTool, Origin } from './tool.mjs';

export class Host {
  constructor(config, gateway) {
    this.edition = config.edition;
    this.variables = { ...config.variables };
    this.presets = new Map(config.presets.map((preset) => [preset.name, preset]));
    this.mode = config.mode;
    this.hostDepth = requireDepth(config.hostDepth, 'hostDepth');
    this.runtimeContext = config.runtimeContext;
    // the model top-level agents run on (MO-01); a child without one runs on its parent's
    this.rootModel = config.model === null ? null : requireModel(config.model,
      'the deployment\'s model', Code.INVALID_CONFIG);
    this.gateway = gateway;
    this.sections = [];
    if (config.persona !== null) {
      const text = render(config.persona, this.variables, 'the deployment persona');
      this.sections.push({ name: PERSONA_SECTION, text, guides: null });
    }
    for (const section of config.sections) {
      this.sections.push({ name: section.name, text: section.text, guides: section.guides ?? null });
    }
    this.registry = new Registry();
    this.events = new EventLog();
    this.providers = new ProviderRegistry();
    this.providers.listen({
      added: (provider) => this.events.emit(Kind.PROVIDER_ADDED, { data: { provider: provider.name } }),
      removed: (provider) => this.events.emit(Kind.PROVIDER_REMOVED,
        { data: { provider: provider.name } }),
    });
    this.store = new SessionStore();
    this.invocations = [];
    this.resolver = new Resolver({ registry: this.registry,
      onInvoke: (invocation) => this.invocations.push(invocation) });
    this.agents = new Map(); // published agents by id
    this.contextHooks = []; // (agent) => [notice, ...], read at every model request (ST-08)
    this.counters = { agent: 0, session: 0, handle: 0 };
    for (const spec of config.tools) this.registry.register(echoTool(spec, Origin.GLOBAL));
    this.root = this.createAgent({ headerDepth: 0 });
    if (config.permissions !== undefined) {
      throw new TckError(Code.INVALID_CONFIG, 'this implementation has no permission rules: '
        + 'restrict a scope with install-restriction, a preset or rootPreset');
    }
    if (config.rootPreset !== undefined) this.startRootFrom(config.rootPreset);
  }

  // The root started from a preset (the `root` restriction channel, docs/driver-api.md#dialect):
  // the preset's tool filter and spawn policy on the root's scope and its persona as the root's
  // persona section, as a child composed from it gets them.
  startRootFrom(name) {
    const preset = typeof name === 'string' ? this.presets.get(name) : undefined;
    if (preset === undefined) {
      throw new TckError(Code.UNKNOWN_PRESET, `no preset ${JSON.stringify(name)} to start the `
        + 'root from: name one of the deployment\'s presets', { preset: name ?? null });
    }
    if (preset.toolFilter !== null) this.root.scope.restrict(preset.toolFilter, this.registry.names());
    if (preset.spawnPolicy !== null) this.root.scope.restrictSpawn(preset.spawnPolicy, this.presets.keys());
    if (preset.persona !== null) {
      this.root.scope.setSection(PERSONA_SECTION,
        render(preset.persona, this.variables, 'the root preset persona'));
    }
  }

  // --- ids -------------------------------------------------------------------------------

  nextId(kind) {
    this.counters[kind] += 1;
    return `${kind}-${this.counters[kind]}`;
  }

  newScope() {
    return new Scope({ mode: this.mode, handles: () => this.nextId('handle') });
  }

  // --- agents ----------------------------------------------------------------------------

  /** A published top-level agent; depths outside the domain are refused (DE-06, DE-07). */
  createAgent({ headerDepth = 0, runtimeDepth = undefined } = {}) {
    requireDepth(headerDepth, 'delegationDepth');
    if (runtimeDepth !== undefined) requireDepth(runtimeDepth, 'runtime subagentDepth');
    const agent = new Agent({ id: this.nextId('agent'), session: this.nextId('session'),
      scope: this.newScope(), loadedDepth: headerDepth, runtimeDepth, model: this.rootModel });
    this.store.putHeader({ session: agent.session, parent: null, delegationDepth: headerDepth,
      descriptor: null });
    this.publish(agent, { depth: this.depthOf(agent) });
    return agent;
  }

  agent(id) {
    const agent = typeof id === 'string' ? this.agents.get(id) : undefined;
    if (agent === undefined) {
      throw new TckError(Code.UNKNOWN_AGENT, `there is no published agent ${JSON.stringify(id)}: `
        + 'use an id from root, create_agent, start or resume', { agent: id ?? null });
    }
    return agent;
  }

  /** The model a stored session runs on: its descriptor's, else its parent session's, else the
   * deployment's (MO-02 on cold resume). */
  sessionModel(session) {
    const seen = new Set();
    let current = session;
    while (typeof current === 'string' && !seen.has(current) && this.store.has(current)) {
      seen.add(current);
      const header = this.store.header(current);
      const { descriptor } = header;
      const model = descriptor !== null && typeof descriptor === 'object' ? descriptor.model
        : undefined;
      if (typeof model === 'string') return model;
      current = header.parent;
    }
    return this.rootModel;
  }

  liveAgentOf(session) {
    for (const agent of this.agents.values()) if (agent.session === session) return agent;
    return null;
  }

  /** FR-02: the agent becomes observable here, its view and prompt already final. */
  publish(agent, data = {}) {
    this.agents.set(agent.id, agent);
    const snapshot = {
      view: this.viewOf(agent).map(({ name, origin }) => ({ name, origin })),
      prompt: this.sectionsOf(agent),
    };
    this.events.emit(Kind.AGENT_PUBLISHED, { agent: agent.id, session: agent.session,
      data: { ...data, snapshot } });
  }

  /** Unpublish: the agent is gone from every observer; its session stays stored. */
  unpublish(agent, kind = Kind.AGENT_DISPOSED, data = {}) {
    if (this.agents.get(agent.id) !== agent) return;
    agent.turn?.controller.abort('the agent was disposed');
    this.agents.delete(agent.id);
    this.events.emit(kind, { agent: agent.id, session: agent.session, data });
  }

  /** DE-02: the larger of the stored header depth and the runtime depth (validated). */
  effectiveDepth(agent) {
    const header = this.store.header(agent.session).delegationDepth;
    return effectiveDepth(header, agent.runtimeDepth);
  }

  /** The depth reported for an agent (the stored header if it is still a depth). */
  depthOf(agent) {
    const header = this.store.header(agent.session).delegationDepth;
    const durable = isDepth(header) ? header : agent.loadedDepth;
    return agent.runtimeDepth === undefined ? durable : Math.max(durable, agent.runtimeDepth);
  }

  persist(agent) {
    this.store.saveTranscript(agent.session, agent.history);
  }

  // --- tools -----------------------------------------------------------------------------

  registerTool(spec, agentId = null) {
    if (agentId === null) {
      this.registry.register(echoTool(spec, Origin.GLOBAL));
    } else {
      this.agent(agentId).scope.addLocal(echoTool(spec, Origin.LOCAL));
    }
  }

  unregisterTool(name, agentId = null) {
    if (agentId !== null) {
      this.agent(agentId).scope.removeLocal(name);
      return;
    }
    const tool = this.registry.get(name);
    if (tool?.owner) {
      throw new TckError(Code.INVALID_REQUEST, `the global tool ${name} belongs to the `
        + `${tool.owner} component: unload it there (unload_subagent_tool)`, { name });
    }
    this.registry.unregister(name);
  }

  viewOf(agent) {
    return this.resolver.view(agent.scope, agent.id);
  }

  schemasOf(agent) {
    return this.resolver.schemas(agent.scope, agent.id);
  }

  execute(agent, name, args, context = {}) {
    return this.resolver.execute(agent.scope, agent.id, name, args, { ...context, host: this });
  }

  /** One SDK call through the agent's run_code (the driver's run-code operation, TF-12). */
  runCode(agent, calls, context = {}) {
    return runCode(this.resolver, agent.scope, agent.id, calls, { ...context, host: this });
  }

  // --- prompt and model requests ---------------------------------------------------------

  sectionsOf(agent) {
    const visible = new Set(this.viewOf(agent).map((entry) => entry.name));
    return assembleSections(this.sections, agent.scope.sections(), (name) => visible.has(name));
  }

  /** What the agent's next model request carries, assembled now (one channel, PE-04). */
  modelRequest(agent) {
    const context = [];
    for (const hook of this.contextHooks) context.push(...hook(agent));
    return {
      agent: agent.id,
      system: systemText(this.sectionsOf(agent)),
      tools: this.schemasOf(agent).map((schema) => ({ ...schema })),
      messages: agent.history,
      context,
      model: agent.model,
    };
  }

  // --- settings --------------------------------------------------------------------------

  setHostDepth(value) {
    this.hostDepth = requireDepth(value, 'the host depth setting');
  }

  close() {
    for (const agent of this.agents.values()) agent.turn?.controller.abort('deployment closed');
    this.agents.clear();
  }
}

