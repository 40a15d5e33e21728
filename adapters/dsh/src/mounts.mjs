// The subagent tool and the provider set through the real DSH plugins: load-subagent-tool
// loads one @deepseek-ai/dsh-tool-subagent instance (ctx.plugin with the kit's config as the
// plugin config, so DSH's own schema and apply() judge it); unload disposes that instance;
// remove-provider/add-provider dispose and re-load the provider plugin (spawn, fork, or a
// --provider-module) that registered the provider, so DSH's subagent/provider-removed and
// provider-added events drive the tool's mount gate (ST-05).
//
// set-host-depth and set-runtime-context have no DSH counterpart in DSH 0.1.x: the tool's cap
// is fixed per instance (config maxDepth, default 3) and DSH emits no at-cap notice. They
// answer a refusal saying so, and the rules that need them (ST-06, ST-08) fail visibly.

import * as ToolSubagent from '@deepseek-ai/dsh-tool-subagent';

import { Code, TckError } from './errors.mjs';
import { DSH } from './version.mjs';

const settle = () => new Promise((resolve) => { setImmediate(resolve); });

/** A DSH refusal of a tool config, with the kit's code for what DSH's message is about. */
function mountRefusal(error, config) {
  const text = error?.message ?? String(error);
  let code = Code.INVALID_CONFIG;
  // DSH's "provider X cannot enforce maxDepth (no depthLimit capability)" is a capability
  // refusal (ST-05's mount gate), so it is tested before the maxDepth value refusals.
  if (/capability/.test(text)) code = Code.UNSUPPORTED_CAPABILITY;
  else if (/maxDepth/.test(text)) code = Code.INVALID_DEPTH;
  else if (/toolFilter/.test(text)) code = Code.INVALID_TOOL_FILTER;
  else if (/already registered/.test(text)) code = Code.DUPLICATE_TOOL_NAME;
  return new TckError(code, `DSH refused the subagent tool: ${text}`,
    { toolName: config.toolName, dsh: error?.name ?? 'Error' });
}

export async function loadSubagentTool(host, config) {
  if (host.mounts.has(config.toolName)) {
    throw new TckError(Code.DUPLICATE_TOOL_NAME, `a subagent tool named ${config.toolName} is `
      + 'already loaded: DSH needs a distinct toolName per instance', { toolName: config.toolName });
  }
  // DSH's defaults otherwise (background mode enabled, one-shot): the tool as DSH ships it.
  const pluginConfig = { provider: config.provider, toolName: config.toolName };
  for (const key of ['maxDepth', 'persona', 'toolFilter', 'agentOptions']) {
    if (Object.hasOwn(config, key)) pluginConfig[key] = config[key];
  }
  let fiber;
  try {
    fiber = await host.ctx.plugin(ToolSubagent, pluginConfig);
  } catch (error) {
    throw mountRefusal(error, config);
  }
  host.mounts.set(config.toolName, fiber);
  host.events.push({ seq: host.events.length + 1, kind: 'subagent-tool.mounted', agent: null,
    session: null, data: { toolName: config.toolName, provider: config.provider } });
}

export async function unloadSubagentTool(host, toolName) {
  const fiber = host.mounts.get(toolName);
  if (fiber === undefined) {
    throw new TckError(Code.UNKNOWN_TOOL, `no subagent tool named ${toolName} is loaded`,
      { name: toolName });
  }
  host.mounts.delete(toolName);
  await fiber.dispose();
  host.events.push({ seq: host.events.length + 1, kind: 'subagent-tool.unmounted', agent: null,
    session: null, data: { toolName } });
}

export async function removeProvider(host, name) {
  const entry = host.providerPlugins.get(name);
  if (entry === undefined || entry.fiber === null) {
    throw new TckError(Code.NO_PROVIDER, `no subagent provider ${JSON.stringify(name)} is `
      + 'registered', { provider: name });
  }
  await entry.fiber.dispose();
  entry.fiber = null;
  for (let i = 0; i < 20 && host.ctx.subagents.getProvider(name) !== undefined; i += 1) {
    await settle();
  }
  host.events.push({ seq: host.events.length + 1, kind: 'provider.removed', agent: null,
    session: null, data: { provider: name } });
}

export async function addProvider(host, name) {
  const entry = host.providerPlugins.get(name);
  if (entry === undefined) {
    throw new TckError(Code.NO_PROVIDER, `this DSH deployment has no provider plugin named `
      + `${JSON.stringify(name)} (it has ${[...host.providerPlugins.keys()].join(', ')})`,
    { provider: name });
  }
  if (entry.fiber !== null) return;
  const loading = host.ctx.plugin(entry.module);
  try {
    entry.fiber = await loading;
  } catch (error) {
    // The provider plugin loaded, but a subagent tool bound to it refused to mount on it
    // (dsh-tool-subagent's mount gate: a numeric maxDepth needs depthLimit, ST-05). The
    // provider stays registered, as in DSH; the refusal is passed on with DSH's message.
    entry.fiber = typeof loading?.dispose === 'function' ? loading : null;
    throw mountRefusal(error, { toolName: null });
  }
  for (let i = 0; i < 20 && host.ctx.subagents.getProvider(name) === undefined; i += 1) {
    await settle();
  }
  host.events.push({ seq: host.events.length + 1, kind: 'provider.added', agent: null,
    session: null, data: { provider: name } });
}

export function noHostDepth() {
  throw new TckError(Code.INVALID_CONFIG, `${DSH} has no live host depth setting: the `
    + 'subagent tool\'s cap is fixed per tool instance (config maxDepth, default 3)',
  { operation: 'set-host-depth' });
}

export function noRuntimeContext() {
  throw new TckError(Code.INVALID_CONFIG, `${DSH} has no switch for runtime-context `
    + 'notices and emits no at-cap notice', { operation: 'set-runtime-context' });
}
