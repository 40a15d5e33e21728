// One deployment of the REAL DSH packages behind the driver API: a cordis Context with DSH's
// own services (system prompt, tool registry, sessions, agent registry and loop, LLM runtime,
// subagent runtime) and the published in-process spawn and fork providers. This module only
// TRANSLATES between the kit's operations and DSH calls; it never re-implements a rule. Where
// DSH throws, the error is passed on with the code of the operation's refusal category and
// DSH's own message (the kit reads the names it needs from the message).
//
// Rules exercised through here: TF-01..TF-16 (DSH's ToolRuntime: register, restrict, view,
// schemas, execute), PE (DSH's SystemPrompt sections), DE-06/DE-09/FR-04 (sessions and cold
// resume through DSH's JSONL persistence). Turns and starts: delegation.mjs; the subagent tool
// and the provider set: mounts.mjs; the model: model.mjs.

import { Context } from '@deepseek-ai/cordis';
import SystemPrompt, { PERSONA_SECTION, renderPrompt } from '@deepseek-ai/dsh-system-prompt';
import ToolRuntime from '@deepseek-ai/dsh-tools';
import CodeRuntime from '@deepseek-ai/dsh-code-runtime-worker-thread';
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session';
import JsonlPersistence from '@deepseek-ai/dsh-session-persistence-jsonl';
import AgentRegistry from '@deepseek-ai/dsh-agent';
import LlmRuntime from '@deepseek-ai/dsh-llm';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import SubagentRuntime from '@deepseek-ai/dsh-subagent';
import LocalJobRegistry from '@deepseek-ai/dsh-jobs-local';
import * as Spawn from '@deepseek-ai/dsh-subagent-spawn-in-process';
import * as Fork from '@deepseek-ai/dsh-subagent-fork-in-process';
import * as PersonaOnly from '../examples/persona_only_provider.mjs';

import { mkdtempSync, rm, rmSync } from 'node:fs';
import { join } from 'node:path';

import { Code, TckError } from './errors.mjs';
import { GatewayLlmAdapter, ROUTE } from './model.mjs';
import { observe } from './observe.mjs';
import { translateToolError } from './outcomes.mjs';
import { SDK_SECTION, sdkTextBindings } from './sdk_text.mjs';
import { BASE, loadPresets } from './presets.mjs';
import { storeBase } from './store_dir.mjs';

/** The kit's presentation modes in DSH's vocabulary (DSH calls programmatic tool calls "code"). */
const MODE = { native: 'native', ptc: 'code', both: 'both' };

/** Plugin modules given with --provider-module, loaded next to the built-ins. */
export const EXTRA_PROVIDERS = [];

/**
 * DSH's published spawn and fork providers, and an under-capable one of our own
 * (examples/persona_only_provider.mjs: DSH's in-process driver, advertising only `persona`), so
 * that DSH's own capability gate (SubagentRuntime.start) is what CA-01..CA-03 judge.
 */
export const PROVIDER_PLUGINS = () => [...new Set([Spawn, Fork, PersonaOnly, ...EXTRA_PROVIDERS])];

const settle = () => new Promise((resolve) => { setImmediate(resolve); });

/** Run a DSH call; a throw becomes a refusal with `code` and DSH's own message. */
export function refuseAs(code, action) {
  try {
    return action();
  } catch (error) {
    if (error instanceof TckError) throw error;
    throw new TckError(code, `DSH refused: ${error?.message ?? String(error)}`,
      { dsh: error?.name ?? 'Error' });
  }
}

let STORE_ROOT = null;

/** One temporary directory per adapter process for DSH's session logs, removed at exit (a
 * deployment's own directory is removed when it closes; late flushes land here too). */
function storeRoot() {
  if (STORE_ROOT === null) {
    STORE_ROOT = mkdtempSync(join(storeBase(), 'dsh-tck-sessions-'));
    process.on('exit', () => rmSync(STORE_ROOT, { recursive: true, force: true }));
  }
  return STORE_ROOT;
}

export class DshHost {
  constructor(config, gateway) {
    this.config = config;
    this.gateway = gateway;
    this.ctx = new Context();
    this.invocations = [];
    this.events = [];
    this.globals = new Map(); // name -> disposer of the kit-registered global tool
    this.locals = new Map(); // agentId -> Map(name -> disposer)
    this.restrictions = new Map(); // handle -> {agent, dispose}
    this.handles = 0;
    this.agents = new Map(); // agentId -> {handle, agent}
    this.modes = new Map(); // agentId -> disposer of presentAs
    this.pending = []; // snapshot prompts being assembled
    this.starts = new Set(); // AbortControllers of starts in flight
    this.runs = new Map(); // child id -> {run, controller} of a direct start, held until close
    this.mounts = new Map(); // toolName -> the dsh-tool-subagent plugin fiber
    this.descriptors = new Map(); // child session -> the kit's descriptor of its DSH descriptor
  }

  /** A child DSH published: the kit may address it like any agent while it lives. */
  adopt(agent) {
    this.agents.set(agent.id, { handle: null, agent });
    if (!this.locals.has(agent.id)) this.locals.set(agent.id, new Map());
  }

  emit(kind, agent, data) {
    this.events.push({ seq: this.events.length + 1, kind, agent: agent.id,
      session: agent.session.id, data });
  }

  viewNames(agent) { return this.ctx.tools.schemas(agent).map((s) => s.name); }

  async promptPairs(agent) {
    const assembly = await this.ctx.systemPrompt.assemble({ scope: agent, agent });
    return this.reported(agent, assembly.sections).map((section) => [kitSectionName(section.name),
      renderOne(section, assembly.variables)]);
  }

  /**
   * The sections of DSH's assembly the kit is told about: all of them, empty ones included
   * (an explicit empty child persona is DSH's scoped empty deployment:persona section, PE-03),
   * except the two empties this adapter makes itself: DSH's global persona slot when the kit's
   * deployment has no persona (DSH always registers the slot; '' is its "no persona"), and a
   * kit guide section whose tool is hidden (the adapter's translation of `guides`, TF-16).
   */
  reported(agent, sections) {
    const shadowed = this.ctx.systemPrompt.layers.chainLayers(agent)
      .some((layer) => layer.sections.has(PERSONA_SECTION));
    return sections.filter((section) => {
      if (section.text !== '') return true;
      if (section.name === PERSONA_SECTION) return shadowed || this.config.persona !== null;
      return !this.guided.has(section.name);
    });
  }

  async boot() {
    const { ctx, config } = this;
    ctx.plugin(SystemPrompt, { includeHarnessIdentity: false, persona: config.persona ?? '' });
    ctx.plugin(ToolRuntime, { mode: MODE[config.mode] });
    ctx.plugin(CodeRuntime); // run_code's runtime (DSH's code mode needs one to present it)
    ctx.plugin(SessionStore);
    // DSH's own durable store (JSONL backend) in a directory owned by this deployment: the
    // session headers the kit reads and the logs cold resume loads.
    this.storeDir = mkdtempSync(join(storeRoot(), 'deployment-'));
    ctx.plugin(JsonlPersistence, { root: this.storeDir, compression: 'none', writeBatchMaxDelayMs: 1 });
    ctx.plugin(AgentRegistry);
    ctx.plugin(LlmRuntime);
    ctx.plugin(AgentLoop, { agents: [] });
    ctx.plugin(SubagentRuntime);
    // DSH's process-local job registry (ctx.jobs), so that the subagent tool's one-shot
    // `run_in_background: true` (its default configuration offers it) starts a real job, as in
    // a DSH host, instead of failing with "background jobs unavailable" (ST-07 judges that
    // call; docs/dsh.md, "Background jobs").
    ctx.plugin(LocalJobRegistry);
    // The deployment's presets as DSH agent presets (src/presets.mjs): DSH's roster composes the
    // children started with one. Without presets the deployment is DSH's rosterless one.
    if ((config.presets ?? []).length > 0) {
      this.presetIds = await loadPresets(ctx, config.presets, join(this.storeDir, 'presets'));
    }
    // name -> {module, fiber}: which plugin registered which provider (remove/add-provider)
    this.providerPlugins = new Map();
    for (const module of PROVIDER_PLUGINS()) {
      const before = new Set(ctx.get('subagents')?.list() ?? []);
      const fiber = await ctx.plugin(module);
      for (let i = 0; i < 50 && !ctx.get('subagents'); i += 1) await settle();
      for (const name of ctx.subagents.list()) {
        if (!before.has(name)) this.providerPlugins.set(name, { module, fiber });
      }
    }
    observe(this);
    const services = ['tools', 'agents', 'subagents', 'agentLoop', 'sessionPersistence', 'jobs',
      ...(this.presetIds === undefined ? [] : ['agentPresets'])];
    for (let i = 0; i < 50 && !services.every((k) => ctx.get(k)); i += 1) {
      await settle();
    }
    this.attachJobController();
    if (this.gateway !== null) ctx.llm.registerAdapter([ROUTE], new GatewayLlmAdapter(this.gateway));
    for (const [name, value] of Object.entries(config.variables)) {
      try {
        ctx.systemPrompt.variable(name, () => value);
      } catch (error) {
        // dsh-system-prompt's variable names are [a-z][a-z0-9_]* (docs/dsh.md, "Variable names
        // are lower case only"): a deployment naming another cannot be set up. Refused as the
        // template error it is, naming the variable, never as a crash.
        throw new TckError(Code.INVALID_TEMPLATE, `DSH refuses the deployment variable name `
          + `${JSON.stringify(name)}: ${error.message}`, { offending: [name] });
      }
    }
    let order = 10;
    this.guided = new Set(config.sections.filter((section) => section.guides).map((s) => s.name));
    for (const section of config.sections) {
      order += 1;
      const { guides } = section;
      try {
        ctx.systemPrompt.section({ name: section.name, order,
          text: guides ? (context) => (ctx.tools.get(guides, context.scope) ? section.text : '')
            : section.text });
      } catch (error) {
        // a name DSH holds itself (its persona's `deployment:persona`): refused, never a crash
        throw new TckError(Code.INVALID_CONFIG, `DSH refuses the deployment section name `
          + `${JSON.stringify(section.name)}: ${error.message}`, { offending: [section.name] });
      }
    }
    for (const spec of config.tools) this.registerTool(spec, null);
    this.root = await this.createAgent();
  }

  /**
   * ctx.jobs.start() needs an attached job controller serving the owner. A DSH host attaches
   * @deepseek-ai/dsh-tool-jobs, which also registers job_output/job_list/job_kill in every
   * agent's view and a prompt section; no rule covers those and they would join every tool
   * list the checks compare, so the adapter attaches a controller of its own (the dsh-jobs
   * contract's attachController) and logs each settled job as a `job.settled` event (what the
   * job tools would have shown the model later: a depth refusal there is a failed job).
   */
  attachJobController() {
    this.ctx.jobs.attachController('subagent-tck');
    this.ctx.jobs.onJobDone((snapshot, owner) => {
      this.events.push({ seq: this.events.length + 1, kind: 'job.settled',
        agent: owner?.id ?? null, session: owner === undefined ? null : String(owner.session.id),
        data: { job: String(snapshot.id), kind: snapshot.kind, status: snapshot.status,
          detail: snapshot.detail ?? null } });
    });
  }

  close() {
    for (const controller of this.starts) controller.abort();
    for (const { run } of this.runs.values()) run.dispose().catch(() => {});
    for (const { handle } of this.agents.values()) handle?.dispose().catch(() => {});
    this.ctx.registry?.ctx?.fiber?.dispose?.();
    // the store removed off the event loop (the close answers at once; a late flush's leftovers
    // go with the store root at exit); the gateway client's keep-alive sockets go (docs/dsh.md)
    if (this.storeDir) rm(this.storeDir, { recursive: true, force: true }, () => {});
    this.gateway?.close?.();
  }

  /** A top-level DSH agent; the depths go where DSH keeps them (header meta, agent option). */
  async createAgent({ headerDepth, runtimeDepth } = {}) {
    this.sessionCount = (this.sessionCount ?? 0) + 1;
    let handle;
    try {
      // with a roster every agent joins a preset; the adapter's own agents join the
      // deployment's (src/presets.mjs BASE), in the unpublished setup as DSH's hosts do
      handle = await this.ctx.agents.create({ sessionId: SessionId(`session-${this.sessionCount}`),
        ...(this.presetIds === undefined ? {} : {
          setup: async (agentCtx) => { await this.ctx.agentPresets.mount(agentCtx, BASE); } }),
        ...(headerDepth === undefined ? {} : { meta: { delegationDepth: headerDepth } }),
        agentOptions: { provider: ROUTE, model: 'scripted',
          ...(runtimeDepth === undefined ? {} : { subagentDepth: runtimeDepth }) } });
    } catch (error) {
      throw new TckError(Code.INVALID_DEPTH, `DSH refused: ${error?.message ?? String(error)}`);
    }
    const { agent } = handle;
    this.agents.set(agent.id, { handle, agent });
    this.locals.set(agent.id, new Map());
    return agent;
  }

  /** The durable headers: DSH's persistence listing, overlaid with the live sessions. */
  async sessions() {
    const live = this.ctx.agents.list();
    await Promise.all(live.map((agent) => this.ctx.sessions.flush(agent.session).catch(() => {})));
    const out = new Map();
    const put = (header) => {
      out.set(String(header.id), { session: String(header.id),
        parent: header.parentSession === undefined ? null : String(header.parentSession),
        delegationDepth: header.delegationDepth ?? 0,
        descriptor: this.descriptors.get(String(header.id)) ?? null });
    };
    for (const header of await this.ctx.sessionPersistence.list()) put(header);
    for (const agent of live) put(agent.session.header);
    return [...out.values()];
  }

  /** Cold resume through DSH's AgentRegistry.resume (the persisted JSONL log). */
  /** Release the live agent that owns `sessionId`, if any (DSH keeps one live owner). */
  async release(sessionId) {
    for (const entry of [...this.agents.values()]) {
      if (String(entry.agent.session.id) !== sessionId) continue;
      const held = this.runs.get(String(entry.agent.id));
      this.runs.delete(String(entry.agent.id));
      await (held?.run ?? entry.handle)?.dispose().catch(() => {});
      this.agents.delete(entry.agent.id);
      this.emit('agent.retired', entry.agent, {});
    }
  }

  /**
   * UNSUPPORTED_OPERATION when `sessionId` is live but DSH has stored nothing of it yet: DSH
   * writes a session's log lazily, with its first event (dsh-session-persistence-jsonl,
   * appendBatch -> materialize), so such a session has no stored header to plant over and no
   * log to cold-resume, and a restart forgets it. A state DSH cannot express, not a refusal
   * (docs/driver-api.md#unsupported-operations); checked before anything is released.
   */
  async refuseUnstored(sessionId, what) {
    const live = this.ctx.agents.list();
    if (!live.some((agent) => String(agent.session.header.id) === sessionId)) return;
    await Promise.all(live.map((agent) => this.ctx.sessions.flush(agent.session).catch(() => {})));
    const stored = await this.ctx.sessionPersistence.list();
    if (stored.some((header) => String(header.id) === sessionId)) return;
    throw new TckError(Code.UNSUPPORTED_OPERATION, `DSH has not stored session `
      + `${JSON.stringify(sessionId)} yet (its log is written with the session's first event): `
      + `there is nothing to ${what} until it has run`, { session: sessionId });
  }

  async resume(sessionId) {
    await this.refuseUnstored(sessionId, 'cold-resume');
    // a live agent on that session: DSH refuses a second live owner, so release it first
    const preset = await this.sessionPreset(sessionId);
    await this.release(sessionId);
    let handle;
    try {
      // the model route is host configuration (which LlmAdapter serves the agent), not state;
      // a session that ran on a preset joins it again in the unpublished setup, as DSH's host
      // does (the header's agentPreset, dsh-agent-presets "Which preset a session runs")
      handle = await this.ctx.agents.resume({ resumeSessionId: SessionId(sessionId),
        agentOptions: { provider: ROUTE, model: 'scripted' },
        ...(preset === undefined ? {} : {
          setup: async (agentCtx) => { await this.ctx.agentPresets.mount(agentCtx, preset); } }) });
    } catch (error) {
      const missing = /not found|no session|unknown|does not exist|ENOENT/i.test(error?.message ?? '');
      throw new TckError(missing ? Code.UNKNOWN_SESSION : Code.NOT_RESUMABLE,
        `DSH refused: ${error?.message ?? String(error)}`, { session: sessionId,
          dsh: error?.name ?? 'Error', dshCode: error?.code ?? null });
    }
    const { agent } = handle;
    this.agents.set(agent.id, { handle, agent });
    if (!this.locals.has(agent.id)) this.locals.set(agent.id, new Map());
    return agent;
  }

  /** The preset a stored session was created on (its header's agentPreset), if any. */
  async sessionPreset(sessionId) {
    if (this.presetIds === undefined) return undefined;
    const live = [...this.agents.values()].find((e) => String(e.agent.session.id) === sessionId);
    const headers = live === undefined ? await this.ctx.sessionPersistence.list() : [];
    const header = live?.agent.session.header ?? headers.find((h) => String(h.id) === sessionId);
    return typeof header?.agentPreset === 'string' ? header.agentPreset : undefined;
  }

  agent(id) {
    const entry = typeof id === 'string' ? this.agents.get(id) : undefined;
    if (entry === undefined) {
      throw new TckError(Code.UNKNOWN_AGENT, `there is no published agent ${JSON.stringify(id)}`,
        { agent: id ?? null });
    }
    return entry.agent;
  }

  ref(agent) {
    const depth = agent.session.header?.delegationDepth ?? 0;
    return { agent: agent.id, session: agent.session.id, depth };
  }

  /** The kit's echo tool as a DSH ToolDefinition: records an Invocation and echoes its call. */
  definition(spec, origin) {
    const host = this;
    return {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      output: { schema: {}, render: (_args, value) => [{ type: 'text', text: JSON.stringify(value) }] },
      async execute(args, exec) {
        const agent = exec.agent?.id ?? '';
        host.invocations.push({ tool: spec.name, agent, origin, arguments: args });
        return { tool: spec.name, agent, origin, arguments: args };
      },
    };
  }

  registerTool(spec, agentId) {
    if (agentId === null) {
      if (spec.name === 'run_code') {
        refuseAs(Code.RESERVED_NAME, () => this.ctx.tools.register(this.definition(spec, 'global')));
      }
      if (this.globals.has(spec.name)) {
        refuseAs(Code.DUPLICATE_TOOL, () => this.ctx.tools.register(this.definition(spec, 'global')));
      }
      const dispose = refuseAs(Code.DUPLICATE_TOOL,
        () => this.ctx.tools.register(this.definition(spec, 'global')));
      this.globals.set(spec.name, dispose);
      return;
    }
    const agent = this.agent(agentId);
    const code = spec.name === 'run_code' ? Code.RESERVED_NAME : Code.DUPLICATE_TOOL;
    const dispose = refuseAs(code, () => agent.ctx.tools.register(this.definition(spec, 'local')));
    this.locals.get(agent.id).set(spec.name, dispose);
  }

  unregisterTool(name, agentId) {
    const table = agentId === null ? this.globals : this.locals.get(this.agent(agentId).id);
    const dispose = table.get(name);
    if (dispose === undefined) {
      throw new TckError(Code.UNKNOWN_TOOL, `no kit-registered tool ${name} ${agentId === null
        ? 'in the global layer' : `in the scope of ${agentId}`}`, { name });
    }
    table.delete(name);
    dispose();
  }

  installRestriction(agentId, raw) {
    const agent = this.agent(agentId);
    // DSH's restrict() takes {allow?, deny?}; anything else is handed over as given.
    const dispose = refuseAs(Code.INVALID_TOOL_FILTER, () => agent.ctx.tools.restrict(raw));
    this.handles += 1;
    const handle = `restriction-${this.handles}`;
    this.restrictions.set(handle, { agent: agent.id, dispose });
    return handle;
  }

  disposeRestriction(agentId, handle) {
    const agent = this.agent(agentId);
    const entry = this.restrictions.get(handle);
    if (entry === undefined) return; // already disposed: DSH disposers are idempotent too
    if (entry.agent !== agent.id) {
      throw new TckError(Code.UNKNOWN_RESTRICTION, `restriction ${handle} does not belong to `
        + `${agentId}`, { handle });
    }
    this.restrictions.delete(handle);
    entry.dispose();
  }

  setMode(agentId, mode) {
    const agent = this.agent(agentId);
    this.modes.get(agent.id)?.();
    this.modes.set(agent.id, refuseAs(Code.INVALID_CONFIG,
      () => agent.ctx.tools.presentAs(MODE[mode])));
  }

  originOf(agent, name) {
    if (name === 'run_code') return 'reserved';
    if (agent !== null && this.locals.get(agent.id)?.has(name)) return 'local';
    // a tool DSH itself registered in the agent's scope (the in-process driver's
    // structured_output, in the child's creation window) is absent from the global view
    if (agent !== null && this.ctx.tools.get(name) === undefined) return 'local';
    return 'global';
  }

  view(agentId) {
    const agent = agentId === null ? null : this.agent(agentId);
    const schemas = refuseAs(Code.INVALID_CONFIG,
      () => this.ctx.tools.schemas(agent === null ? undefined : agent));
    return schemas.map((s) => ({ name: s.name, origin: this.originOf(agent, s.name),
      description: s.description ?? '' }));
  }

  async toolSchemas(agentId) {
    const agent = this.agent(agentId);
    const assembly = await this.ctx.systemPrompt.assemble({ scope: agent, agent });
    return assembly.tools.map((s) => ({ name: s.name, description: s.description ?? '',
      parameters: s.parameters ?? {} }));
  }

  lookup(agentId, name) {
    const agent = this.agent(agentId);
    const tool = this.ctx.tools.get(name, agent);
    return tool === undefined ? null : { name, origin: this.originOf(agent, name),
      description: tool.description ?? '' };
  }

  async execute(agentId, name, args) {
    const agent = this.agent(agentId);
    this.calls = (this.calls ?? 0) + 1;
    const result = await this.ctx.tools.execute({ callId: `call-${this.calls}`, name,
      arguments: args, agent, signal: new AbortController().signal });
    const text = (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('');
    if (result.isError) {
      return { isError: true, code: translateToolError(result.error), content: text };
    }
    return { isError: false, code: null, content: result.value };
  }

  /** The names the run_code SDK text the model reads declares (src/sdk_text.mjs). */
  async sdkBindings(agentId) {
    const agent = this.agent(agentId);
    const assembly = await refuseAs(Code.INVALID_TEMPLATE,
      () => this.ctx.systemPrompt.assemble({ scope: agent, agent }));
    const section = assembly.sections.find((s) => s.name === SDK_SECTION);
    const text = section === undefined ? ''
      : refuseAs(Code.INVALID_TEMPLATE, () => renderOne(section, assembly.variables));
    return sdkTextBindings(text);
  }

  async prompt(agentId) {
    const agent = this.agent(agentId);
    const assembly = await refuseAs(Code.INVALID_TEMPLATE,
      () => this.ctx.systemPrompt.assemble({ scope: agent, agent }));
    return this.reported(agent, assembly.sections).map((section) => ({
      name: kitSectionName(section.name),
      text: refuseAs(Code.INVALID_TEMPLATE, () => renderOne(section, assembly.variables)) }));
  }
}

/** DSH renders one section with its own interpolation (renderPrompt over a one-section assembly). */
function renderOne(section, variables) {
  return renderPrompt({ sections: [section], variables });
}

/** DSH's persona section under the kit's name for it (a vocabulary mapping, like MODE). */
const KIT_PERSONA_SECTION = 'deployment:persona-prefix';
const kitSectionName = (name) => (name === PERSONA_SECTION ? KIT_PERSONA_SECTION : name);
