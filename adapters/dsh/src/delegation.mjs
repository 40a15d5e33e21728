// Turns and delegation through the real DSH: run-turn (Agent.followup + whenIdle, read back
// from the session log exactly as DSH's in-process driver reads a child), abort-turn
// (Agent.cancel), start (ctx.subagents.start with the request's controls, run to completion,
// disposed on every path), and the lifecycle log translated from DSH's own events
// (agent/created, agent/disposed, subagent/start, subagent/end).
//
// Rules exercised: CA-01..CA-05 (DSH's capability check), DE-01..DE-08 (DSH's depth
// resolution), FR-01..FR-03, ST-09. DSH's errors are passed on with the kit's code for DSH's
// error class: SubagentError keeps its own code (NO_PROVIDER, UNSUPPORTED_CAPABILITY), DSH's
// depth-domain TypeError/RangeError (no code) is INVALID_DEPTH, SubagentDepthError is
// DEPTH_EXCEEDED.

import { SubagentDepthError } from '@deepseek-ai/dsh-subagent';
import { createUserMessage } from '@deepseek-ai/dsh-llm';

import { Code, TckError } from './errors.mjs';
import { DSH } from './version.mjs';
import { outcomeOf } from './outcomes.mjs';
import { presetOutputSchema, withPreset } from './presets.mjs';

const KNOWN_CODES = new Set(Object.values(Code));

/** One user turn of a live agent, run to idle. */
export async function runTurn(host, agentId, prompt) {
  const agent = host.agent(agentId);
  const boundary = agent.session.events.length;
  agent.followup(createUserMessage({ content: [{ type: 'text', text: prompt }],
    source: { kind: 'user' } }));
  await agent.whenIdle();
  return { ...host.ref(agent), ...outcomeOf(agent.session.events, boundary) };
}

export function abortTurn(host, agentId) {
  host.agent(agentId).cancel({ kind: 'user' });
}

/** A DSH error from ctx.subagents.start as the kit's refusal. */
function refusal(error) {
  const message = `DSH refused: ${error?.message ?? String(error)}`;
  const details = { dsh: error?.name ?? 'Error', dshCode: error?.code ?? null };
  if (error instanceof SubagentDepthError) return new TckError(Code.DEPTH_EXCEEDED, message, details);
  // DSH reports a depth outside the domain (maxDepth, a runtime subagentDepth, a stored header
  // depth) and a derived depth past 2^53-1 as a plain TypeError/RangeError without a code.
  if ((error instanceof TypeError || error instanceof RangeError) && /depth/i.test(error.message)) {
    return new TckError(Code.INVALID_DEPTH, message, details);
  }
  if (typeof error?.code === 'string' && KNOWN_CODES.has(error.code)) {
    return new TckError(error.code, message, details);
  }
  return new TckError(Code.SETUP_FAILED, message, details);
}

/** The StartRequest's controls in DSH's request fields (absent stays absent). */
function controls(request) {
  const out = {};
  for (const key of ['maxDepth', 'persona', 'toolFilter', 'outputSchema']) {
    if (Object.hasOwn(request, key)) out[key] = request[key];
  }
  return out;
}

/**
 * The kit's spawnPolicy and model, asked by the request or by its preset. No DSH provider
 * advertises spawnPolicy or modelSelection (DSH's capability flags are depthLimit, persona,
 * toolFilter and outputSchema: SubagentRuntime.assertCapabilities), and this adapter maps
 * neither onto a DSH field (DSH has no spawn policy; a start's agentOptions.model is not
 * mapped, so DSH is not judged on model selection): a start that asks for one is refused as an
 * unadvertised control (docs/rules.md#ca-01), before DSH is called.
 */
function refuseUnmapped(host, request) {
  // an unknown provider is DSH's NO_PROVIDER to report (CA-05), whatever else the start asks
  if (!host.ctx.subagents.list().includes(request.provider)) return;
  const spec = typeof request.preset === 'string'
    ? host.config.presets.find((preset) => preset.name === request.preset) : undefined;
  for (const [field, capability] of [['spawnPolicy', 'spawnPolicy'], ['model', 'modelSelection']]) {
    const asked = request[field] ?? spec?.[field] ?? null;
    if (asked === null) continue;
    throw new TckError(Code.UNSUPPORTED_CAPABILITY, `provider ${request.provider} does not `
      + `advertise ${capability} (no ${DSH} provider does): ${field} is not a ${DSH} start `
      + 'control', { capability, provider: request.provider ?? null, field });
  }
}

/** ctx.subagents.start with the request's provider and controls; run to completion. */
/**
 * The request's preset, the DSH way: DSH requests have no preset field (the request-controls
 * edition refuses one); in the preset-composition edition the start runs with its parent
 * re-linked to the preset, so that DSH's child composition joins it (src/presets.mjs). The
 * preset's outputSchema travels in the request's outputSchema field.
 */
export function withRequestPreset(host, request, parent, fields, create) {
  refuseUnmapped(host, request);
  if (!Object.hasOwn(request, 'preset')) return create(fields);
  if (host.config.edition === 'request-controls') {
    throw new TckError(Code.UNKNOWN_PRESET, `${DSH} subagent requests have no preset `
      + 'field (the request-controls edition): leave preset out', { preset: request.preset });
  }
  const schema = presetOutputSchema(host, request.preset);
  const withSchema = schema === undefined || Object.hasOwn(fields, 'outputSchema') ? fields
    : { ...fields, outputSchema: schema };
  return withPreset(host, parent, request.preset, () => create(withSchema));
}

export async function start(host, request) {
  const parent = host.agent(request.parent);
  const controller = new AbortController();
  host.starts.add(controller);
  let run;
  try {
    run = await withRequestPreset(host, request, parent, controls(request),
      (fields) => host.ctx.subagents.start(request.provider, {
        parent, prompt: [{ type: 'text', text: request.prompt }], signal: controller.signal,
        ...fields }));
  } catch (error) {
    host.starts.delete(controller);
    throw refusal(error);
  }
  const child = run.localAgent;
  // DSH hands the run to its holder, who decides when to dispose it: the kit's direct start
  // keeps the child published (as the reference does) until a resume replaces it or the
  // deployment closes. ST-09's dispose-on-return is the subagent tool's job, judged there.
  host.runs.set(String(run.id), { run, controller });
  let result;
  try {
    result = await run.result;
  } catch (error) {
    result = { stopReason: 'error', output: [], diagnostic: String(error?.message ?? error) };
  } finally {
    await Promise.all(host.pending.splice(0));
  }
  const events = child?.session.events ?? [];
  const { toolResults } = outcomeOf(events, 0);
  const output = result.structured !== undefined ? result.structured
    : (result.output ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
  return { agent: String(run.id), session: String(run.id),
    depth: child?.session.header?.delegationDepth ?? 0, stopReason: result.stopReason,
    output, toolResults };
}
