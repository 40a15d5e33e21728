// The model-facing `subagent` tool (component subagent-tool, ST-01..ST-09; docs/rules.md#st-01).
//
// Each load binds one provider under one toolName (ST-04: a name is loaded once). The model
// sees two parameters only, description and prompt (ST-01). The tool is a global tool that
// exists exactly while its provider is registered: it is mounted when the provider is (or
// becomes) present and unmounted when it goes, with wording derived afresh from the provider's
// inheritsParentContext at every mount (ST-02, ST-03). maxDepth is checked at load (ST-05:
// outside the depth domain it fails; a numeric cap fails at mount on a provider without
// depthLimit; 'provider-managed' sends no cap); without it the cap is the host's live depth
// setting, read at each call (ST-06). Every call checks the calling agent's current depth
// against the cap: at the cap the tool stays visible and the call is an errored result,
// nothing started (ST-07), and, with runtime context on, the calling agent's requests carry a
// notice to work directly, built at request time and not repeated while unchanged (ST-08).
// A run is disposed on every path, the call's abort signal cancels it, and a stop reason other
// than completed is an errored result naming it (ST-09). A load may bind one preset (its
// children's composition; UNKNOWN_PRESET at load when the deployment has none of that name)
// and agentOptions.model (their model, which needs modelSelection at mount, MO-01): the model
// chooses a tool, never a preset, and the wording names none (docs/rules.md#SP-02's Decision);
// a call the caller's spawn policies refuse is an errored result, nothing started (SP-01).

import { deriveChildDepth, requireDepth } from './depth.mjs';
import { requireModel } from './agent.mjs';
import { Code, TckError } from './errors.mjs';
import { Kind } from './events.mjs';
import { runForTool, startChild } from './delegation.mjs';
import { Capability, hasCapability } from './providers.mjs';
import { RUN_CODE, refusedStart, toolError, toolResult } from './tool.mjs';

export const PROVIDER_MANAGED = 'provider-managed';
export const OWNER = 'subagent-tool';

export function wording(provider) {
  if (provider.inheritsParentContext) {
    return {
      description: `Delegate a task to a forked child agent (provider ${provider.name}) that is `
        + 'seeded with the completed turns of this conversation, and get back its final output. '
        + 'The child already has this conversation, so the prompt states only what is new.',
      prompt: 'What the child should do now. It already has the completed turns of this '
        + 'conversation, so state only what is new: the task and anything decided since.',
    };
  }
  return {
    description: `Delegate a self-contained task to a new child agent (provider ${provider.name}) `
      + 'and get back its final output. The child starts a fresh conversation and does not see '
      + 'this one, so the prompt must stand alone.',
    prompt: 'The complete task for the child, written to stand alone: the child does not see '
      + 'this conversation, so include every fact, file and constraint it needs.',
  };
}

export class SubagentTools {
  #loads = new Map(); // toolName -> load
  #noticed = new Map(); // agent id -> Map(toolName -> "cap:depth" last notified)

  constructor(host) {
    this.host = host;
    host.providers.listen(this);
    host.contextHooks.push((agent) => this.notices(agent));
  }

  /** Load one tool; refused loads register nothing. */
  load(config) {
    const { host } = this;
    const toolName = config.toolName ?? 'subagent';
    if (typeof toolName !== 'string' || toolName.length === 0) {
      throw new TckError(Code.INVALID_CONFIG, 'toolName must be a non-empty string');
    }
    if (typeof config.provider !== 'string' || config.provider.length === 0) {
      throw new TckError(Code.INVALID_CONFIG, 'provider must name a provider (a string)');
    }
    const cap = readCap(config);
    const load = { toolName, provider: config.provider, cap, persona: undefined,
      toolFilter: undefined, mounted: false, preset: readPreset(host, config),
      model: readModel(config) };
    for (const key of ['persona', 'toolFilter']) {
      if (config[key] === undefined || config[key] === null) continue;
      if (host.edition === 'preset-composition') {
        throw new TckError(Code.REQUEST_CONTROLS_REFUSED, `the subagent tool's ${key} is a `
          + 'per-request control, which the preset-composition edition does not accept: compose '
          + 'children with presets, or deploy the request-controls edition', { field: key });
      }
      load[key] = structuredClone(config[key]);
    }
    if (load.persona !== undefined && typeof load.persona !== 'string') {
      throw new TckError(Code.INVALID_CONFIG, 'persona must be a string');
    }
    if (this.#loads.has(toolName)) {
      throw new TckError(Code.DUPLICATE_TOOL_NAME, `a subagent tool named ${toolName} is `
        + `already loaded (bound to ${this.#loads.get(toolName).provider}): give this load a `
        + 'distinct toolName, e.g. subagent_acp', { toolName });
    }
    if (toolName === RUN_CODE) {
      throw new TckError(Code.RESERVED_NAME, `${RUN_CODE} is reserved: choose another toolName`);
    }
    const provider = host.providers.get(load.provider);
    if (provider !== null) this.#mount(load, provider, { loud: true });
    this.#loads.set(toolName, load);
  }

  unload(toolName) {
    const load = this.#loads.get(toolName);
    if (load === undefined) {
      throw new TckError(Code.UNKNOWN_TOOL, `no subagent tool named ${toolName} is loaded`,
        { toolName });
    }
    this.#unmount(load);
    this.#loads.delete(toolName);
  }

  // --- mirroring the provider (ST-02) ----------------------------------------------------

  added(provider) {
    for (const load of this.#loads.values()) {
      if (load.provider === provider.name && !load.mounted) {
        this.#mount(load, provider, { loud: false });
      }
    }
  }

  removed(provider) {
    for (const load of this.#loads.values()) {
      if (load.provider === provider.name) this.#unmount(load);
    }
  }

  #mount(load, provider, { loud }) {
    try {
      mountGate(load, provider);
      const words = wording(provider);
      this.host.registry.register({
        name: load.toolName,
        description: words.description,
        parameters: {
          type: 'object',
          properties: {
            description: { type: 'string', description: 'A short label for the task (a few '
              + 'words).' },
            prompt: { type: 'string', description: words.prompt },
          },
          required: ['description', 'prompt'],
          additionalProperties: false,
        },
        owner: OWNER,
        body: (args, context) => this.#call(load, args, context),
      });
    } catch (error) {
      if (loud || !(error instanceof TckError)) throw error;
      this.host.events.emit(Kind.TOOL_MOUNT_FAILED, { data: { toolName: load.toolName,
        provider: provider.name, code: error.code, message: error.reason } });
      return;
    }
    load.mounted = true;
    this.host.events.emit(Kind.TOOL_MOUNTED, { data: { toolName: load.toolName,
      provider: provider.name } });
  }

  #unmount(load) {
    if (!load.mounted) return;
    this.host.registry.unregister(load.toolName);
    load.mounted = false;
    this.host.events.emit(Kind.TOOL_UNMOUNTED, { data: { toolName: load.toolName,
      provider: load.provider } });
  }

  // --- a call -----------------------------------------------------------------------------

  /** The cap of a call, read now: a number, or undefined for provider-managed (no cap). */
  #capNow(load) {
    if (load.cap === 'host') return this.host.hostDepth;
    if (load.cap === PROVIDER_MANAGED) return undefined;
    return load.cap;
  }

  async #call(load, args, context) {
    const { host } = this;
    if (typeof args.prompt !== 'string' || args.prompt.length === 0) {
      return toolError(Code.INVALID_REQUEST, 'call this tool with {"description": "...", '
        + '"prompt": "<the task>"}');
    }
    if (args.description !== undefined && typeof args.description !== 'string') {
      return toolError(Code.INVALID_REQUEST, 'description must be a string');
    }
    const caller = host.agents.get(context.agent);
    const provider = host.providers.get(load.provider);
    if (caller === undefined || provider === null) {
      return toolError(Code.NO_PROVIDER, `provider ${load.provider} is not available`);
    }
    const cap = this.#capNow(load);
    let child;
    try {
      if (cap !== undefined) {
        const header = host.store.header(caller.session).delegationDepth;
        deriveChildDepth({ header, runtime: caller.runtimeDepth, cap });
      }
      const request = { parent: caller.id, provider: provider.name, prompt: args.prompt };
      if (cap !== undefined && hasCapability(provider, Capability.DEPTH_LIMIT)) {
        request.maxDepth = cap;
      }
      if (load.persona !== undefined) request.persona = load.persona;
      if (load.toolFilter !== undefined) request.toolFilter = structuredClone(load.toolFilter);
      if (load.preset !== undefined) request.preset = load.preset;
      if (load.model !== undefined) request.model = load.model;
      child = startChild(host, request);
    } catch (error) {
      return refusedStart(error);
    }
    const outcome = await runForTool(host, child, args.prompt,
      { signal: context.signal, by: load.toolName });
    if (outcome.stopReason !== 'completed') {
      return toolError(null, `the child run stopped with "${outcome.stopReason}", not `
        + `"completed": its output is not a result (${outcome.stopReason})`);
    }
    const { output } = outcome;
    return toolResult(typeof output === 'string' ? output : JSON.stringify(output ?? null));
  }

  // --- the at-cap runtime-context notice (ST-08) -----------------------------------------

  notices(agent) {
    const { host } = this;
    const seen = this.#noticed.get(agent.id) ?? new Map();
    this.#noticed.set(agent.id, seen);
    // the tool as this agent sees it: the mounted global, not a local of the same name
    const visible = new Set(host.viewOf(agent).filter((entry) => entry.tool.owner === OWNER)
      .map((entry) => entry.name));
    const out = [];
    for (const load of this.#loads.values()) {
      const cap = this.#capNow(load);
      if (!load.mounted || !visible.has(load.toolName) || cap === undefined) {
        seen.delete(load.toolName);
        continue;
      }
      let depth;
      try {
        depth = host.effectiveDepth(agent);
      } catch {
        continue;
      }
      if (depth + 1 <= cap) {
        seen.delete(load.toolName);
        continue;
      }
      const key = `${cap}:${depth}`;
      if (!host.runtimeContext || seen.get(load.toolName) === key) continue;
      seen.set(load.toolName, key);
      out.push(`You are at delegation depth ${depth} and the delegation cap of the `
        + `${load.toolName} tool is ${cap}: it cannot start a child from here. Work on the task `
        + 'directly yourself instead of delegating.');
    }
    return out;
  }
}

function readPreset(host, config) {
  const { preset } = config;
  if (preset === undefined || preset === null) return undefined;
  if (typeof preset !== 'string' || !host.presets.has(preset)) {
    throw new TckError(Code.UNKNOWN_PRESET, `the subagent tool's preset ${JSON.stringify(preset)} `
      + 'is not one of the deployment\'s presets: define it first, or leave preset out',
    { preset });
  }
  return preset;
}

function readModel(config) {
  const options = config.agentOptions;
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object' || Array.isArray(options)
      || Object.keys(options).some((key) => key !== 'model')) {
    throw new TckError(Code.INVALID_CONFIG, 'agentOptions is an object with an optional model');
  }
  if (options.model === undefined || options.model === null) return undefined;
  return requireModel(options.model, 'agentOptions.model', Code.INVALID_CONFIG);
}

function readCap(config) {
  const value = config.maxDepth;
  if (value === undefined || value === null) return 'host';
  if (value === PROVIDER_MANAGED) return PROVIDER_MANAGED;
  return requireDepth(value, 'the subagent tool\'s maxDepth');
}

/** ST-05 and CA-01 at mount: a control the tool would send needs the provider's capability. */
function mountGate(load, provider) {
  const needs = [];
  if (typeof load.cap === 'number') needs.push(['maxDepth', Capability.DEPTH_LIMIT]);
  if (load.persona !== undefined) needs.push(['persona', Capability.PERSONA]);
  if (load.toolFilter !== undefined) needs.push(['toolFilter', Capability.TOOL_FILTER]);
  if (load.model !== undefined) needs.push(['agentOptions.model', Capability.MODEL_SELECTION]);
  for (const [field, capability] of needs) {
    if (!hasCapability(provider, capability)) {
      throw new TckError(Code.UNSUPPORTED_CAPABILITY, `the ${load.toolName} tool's ${field} `
        + `needs a provider that advertises ${capability}, and ${provider.name} does not: `
        + `drop ${field}${field === 'maxDepth' ? ` or use '${PROVIDER_MANAGED}'` : ''}`,
      { capability, provider: provider.name, toolName: load.toolName });
    }
  }
}
