// DSH's continuable path behind the kit's start / run-turn / resume / prompt, selected with
// `server.mjs --continuable` (docs/dsh.md, "The continuable path"). DSH's continuable children
// (dsh-subagent/lib/index.js, SubagentContinuationManager) are what DSH resumes: their durable
// subagent/descriptor keeps persona and toolFilter, and a later message to a child that is no
// longer resident cold-resumes it from its log (coldResume -> materialize -> ctx.agents.resume
// with applyChildComposition in the unpublished setup). The translation:
//
// - start       -> ctx.subagents.startContinuable({provider, label, request}); the child's first
//                  turn is run until DSH settles and disposes the activation (a continuable child
//                  is resident only while it has work); the RunResult is read from its log.
// - run-turn    -> ctx.subagents.followup(parent, child, prompt) on a continuable child: DSH
//                  wakes it or, when it is not resident, cold-resumes it; run until it settles.
// - resume      -> the same cold resume: DSH has no resume without a message (a parent's
//                  send_message is what resumes a child), so the adapter delivers RESUME_TEXT.
// - prompt      -> while the child is not resident, the prompt of its last activation (captured
//                  when DSH published it), since DSH holds no agent to assemble one for.
//
// Rules judged here: FR-04 (cold resume restores the historical persona and filter; a
// descriptor that no longer applies fails the resume), CA-01/CA-02 on this path (DSH's
// continuable start does not consult capability flags: prepareContinuable presence is its only
// gate). Refusals keep DSH's SubagentError code where the kit has it (NOT_RESUMABLE,
// UNSUPPORTED_CAPABILITY, ...); any other failure of a cold resume is NOT_RESUMABLE, which is
// how DSH itself wraps it (coldResume).

import { SubagentDepthError, SubagentError } from '@deepseek-ai/dsh-subagent';

import { SessionId } from '@deepseek-ai/dsh-session';

import { Code, TckError } from './errors.mjs';
import { outcomeOf } from './outcomes.mjs';
import { withRequestPreset } from './delegation.mjs';

/** Set by `server.mjs --continuable`: the kit's start goes through DSH's continuable path. */
export const PATH = { continuable: false };

/** The message the adapter's resume delivers (DSH cold-resumes a child on a message). */
export const RESUME_TEXT = 'subagent-tck: the session was resumed; continue.';

const KNOWN_CODES = new Set(Object.values(Code));

function state(host) {
  if (host.continuable === undefined) {
    host.continuable = new Map(); // child id -> {parent, agent, prompt, boundary, waiters}
    host.ctx.on('agent/created', ({ agent }) => {
      const child = host.continuable.get(String(agent.id));
      if (child === undefined) return;
      child.agent = agent;
      child.boundary = agent.session.events.length;
      const previous = child.prompt;
      child.prompt = host.prompt(String(agent.id)).catch(() => previous);
    });
    host.ctx.on('agent/disposed', ({ agent }) => {
      const child = host.continuable.get(String(agent.id));
      if (child === undefined) return;
      for (const resolve of child.waiters.splice(0)) resolve(agent);
    });
  }
  return host.continuable;
}

export const isContinuableChild = (host, id) => host.continuable?.has(id) === true;

function refusal(error, fallback) {
  const message = `DSH refused: ${error?.message ?? String(error)}`;
  const details = { dsh: error?.name ?? 'Error', dshCode: error?.code ?? null, path: 'continuable' };
  if (error instanceof TckError) return error;
  if (error instanceof SubagentDepthError) return new TckError(Code.DEPTH_EXCEEDED, message, details);
  if ((error instanceof TypeError || error instanceof RangeError) && /depth/i.test(error.message)) {
    return new TckError(Code.INVALID_DEPTH, message, details);
  }
  if (error instanceof SubagentError && KNOWN_CODES.has(error.code)) {
    return new TckError(error.code, message, details);
  }
  // DSH's descriptor has no spawn policy and no model (no DSH provider advertises spawnPolicy or
  // modelSelection): its parser refuses such a field of a stored descriptor as unknown, which is
  // DSH refusing a control it does not offer, so it is named as the capability
  // (docs/rules.md#ca-01); DSH's own words stay in the message.
  const unknown = /unknown field "(spawnPolicy|model)"/.exec(error?.message ?? '');
  if (unknown !== null) {
    return new TckError(Code.UNSUPPORTED_CAPABILITY, message, { ...details,
      capability: unknown[1] === 'model' ? 'modelSelection' : 'spawnPolicy' });
  }
  return new TckError(fallback, message, details);
}

/** Resolves with the agent DSH disposes when the child's activation settles. */
function settled(child) {
  return new Promise((resolve) => { child.waiters.push(resolve); });
}

async function result(host, child, disposed, boundary) {
  await Promise.all(host.pending.splice(0));
  const events = disposed.session.events;
  const { stopReason, output, toolResults } = outcomeOf(events, boundary ?? 0);
  child.prompt = await child.prompt;
  const id = String(disposed.id);
  return { agent: id, session: id, depth: disposed.session.header?.delegationDepth ?? 0,
    stopReason, output, toolResults };
}

/** The kit's start on DSH's continuable path. */
export async function startContinuable(host, request) {
  const children = state(host);
  const parent = host.agent(request.parent);
  const fields = {};
  for (const key of ['maxDepth', 'persona', 'toolFilter', 'outputSchema']) {
    if (Object.hasOwn(request, key)) fields[key] = request[key];
  }
  const controller = new AbortController();
  host.starts.add(controller);
  // the id is chosen here so the activation's lifecycle is watched before DSH creates it
  const childId = `continuable-${(host.continuableCount = (host.continuableCount ?? 0) + 1)}`;
  const child = { parent, agent: null, prompt: Promise.resolve([]), boundary: 0, waiters: [] };
  children.set(childId, child);
  const done = settled(child);
  try {
    await withRequestPreset(host, request, parent, fields, (controls) => host.ctx.subagents
      .startContinuable({ provider: request.provider, label: 'subagent-tck',
        childId: SessionId(childId), signal: controller.signal,
        request: { parent, prompt: [{ type: 'text', text: request.prompt }], ...controls } }));
  } catch (error) {
    children.delete(childId);
    throw refusal(error, Code.SETUP_FAILED);
  } finally {
    host.starts.delete(controller);
  }
  return result(host, child, await done, 0);
}

/** A message to a continuable child: DSH wakes it or cold-resumes it; run until it settles. */
async function deliver(host, id, text) {
  const child = state(host).get(id);
  const done = settled(child);
  const controller = new AbortController();
  try {
    await host.ctx.subagents.followup(child.parent, id, [{ type: 'text', text }],
      { source: { kind: 'user' }, signal: controller.signal });
  } catch (error) {
    child.waiters.splice(0);
    throw refusal(error, Code.NOT_RESUMABLE);
  }
  const disposed = await done;
  return result(host, child, disposed, child.boundary);
}

export const runContinuableTurn = (host, id, prompt) => deliver(host, id, prompt);

export async function resumeContinuable(host, id) {
  const { agent, session, depth } = await deliver(host, id, RESUME_TEXT);
  return { agent, session, depth };
}

/** The prompt of a continuable child that is not resident: its last activation's. */
export async function lastPrompt(host, id) {
  return host.continuable.get(id).prompt;
}
