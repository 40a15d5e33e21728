// One deployment of the REAL DSH packages behind the driver API: a cordis Context with DSH's
// own services (system prompt, tool registry, sessions, agent registry and loop, LLM runtime,
// subagent runtime) and the published in-process spawn and fork providers. This module only
// TRANSLATES between the kit's operations and DSH calls; it never re-implements a rule. Where
// DSH throws, the error is passed on with the code of the operation's refusal category and
// DSH's own message (the kit reads the names it needs from the message).
//
// Rules exercised through here: TF-01..TF-16 (DSH's ToolRuntime: register, restrict, view,
// schemas, execute), PE (DSH's SystemPrompt sections).

import { Context } from '@deepseek-ai/cordis';
import SystemPrompt, { PERSONA_SECTION, renderPrompt } from '@deepseek-ai/dsh-system-prompt';
import ToolRuntime from '@deepseek-ai/dsh-tools';
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session';
import AgentRegistry from '@deepseek-ai/dsh-agent';
import LlmRuntime from '@deepseek-ai/dsh-llm';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import SubagentRuntime from '@deepseek-ai/dsh-subagent';
import * as Spawn from '@deepseek-ai/dsh-subagent-spawn-in-process';
import * as Fork from '@deepseek-ai/dsh-subagent-fork-in-process';

import { Code, TckError } from './errors.mjs';

/** The kit's presentation modes in DSH's vocabulary (DSH calls programmatic tool calls "code"). */
const MODE = { native: 'native', ptc: 'code', both: 'both' };

/** Plugin modules given with --provider-module, loaded next to the built-ins. */
export const EXTRA_PROVIDERS = [];

export const PROVIDER_PLUGINS = () => [Spawn, Fork, ...EXTRA_PROVIDERS];

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
  }

  async boot() {
    const { ctx, config } = this;
    ctx.plugin(SystemPrompt, { includeHarnessIdentity: false, persona: config.persona ?? '' });
    ctx.plugin(ToolRuntime, { mode: MODE[config.mode] });
    ctx.plugin(SessionStore);
    ctx.plugin(AgentRegistry);
    ctx.plugin(LlmRuntime);
    ctx.plugin(AgentLoop, { agents: [] });
    ctx.plugin(SubagentRuntime);
    for (const provider of PROVIDER_PLUGINS()) ctx.plugin(provider);
    for (let i = 0; i < 50 && !['tools', 'agents', 'subagents', 'agentLoop'].every((k) => ctx.get(k)); i += 1) {
      await settle();
    }
    for (const [name, value] of Object.entries(config.variables)) {
      ctx.systemPrompt.variable(name, () => value);
    }
    let order = 10;
    for (const section of config.sections) {
      order += 1;
      const { guides } = section;
      ctx.systemPrompt.section({ name: section.name, order,
        text: guides ? (context) => (ctx.tools.get(guides, context.scope) ? section.text : '')
          : section.text });
    }
    for (const spec of config.tools) this.registerTool(spec, null);
    this.root = await this.createAgent();
  }

  close() {
    for (const { handle } of this.agents.values()) handle.dispose().catch(() => {});
    this.ctx.registry?.ctx?.fiber?.dispose?.();
  }

  /** A top-level DSH agent; the depths go where DSH keeps them (header meta, agent option). */
  async createAgent({ headerDepth, runtimeDepth } = {}) {
    this.sessions = (this.sessions ?? 0) + 1;
    let handle;
    try {
      handle = await this.ctx.agents.create({ sessionId: SessionId(`session-${this.sessions}`),
        ...(headerDepth === undefined ? {} : { meta: { delegationDepth: headerDepth } }),
        agentOptions: { provider: 'tck-gateway', model: 'scripted',
          ...(runtimeDepth === undefined ? {} : { subagentDepth: runtimeDepth }) } });
    } catch (error) {
      throw new TckError(Code.INVALID_DEPTH, `DSH refused: ${error?.message ?? String(error)}`);
    }
    const { agent } = handle;
    this.agents.set(agent.id, { handle, agent });
    this.locals.set(agent.id, new Map());
    return agent;
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

  async sdkBindings(agentId) {
    const agent = this.agent(agentId);
    const mode = this.ctx.tools.modeFor(agent);
    if (mode === 'native') return [];
    return this.ctx.tools.sdkSchemas(agent).map((s) => s.name);
  }

  async prompt(agentId) {
    const agent = this.agent(agentId);
    const assembly = await refuseAs(Code.INVALID_TEMPLATE,
      () => this.ctx.systemPrompt.assemble({ scope: agent, agent }));
    return assembly.sections.map((section) => ({ name: section.name,
      text: refuseAs(Code.INVALID_TEMPLATE, () => renderOne(section, assembly.variables)) }))
      .filter((section) => section.text.length > 0);
  }
}

/** DSH renders one section with its own interpolation (renderPrompt over a one-section assembly). */
function renderOne(section, variables) {
  return renderPrompt({ sections: [section], variables });
}

/** DSH's failure info code (HarnessError) mapped onto the kit's vocabulary where it is the same. */
function translateToolError(error) {
  const code = error?.info?.code;
  if (code === 'UNKNOWN_TOOL' || code === 'TOOL_NOT_FOUND') return Code.UNKNOWN_TOOL;
  return code ?? null;
}

export { PERSONA_SECTION };
