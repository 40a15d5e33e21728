// The agent loop: one turn of an agent over its model (TF-12, FR-05, ST-08, ST-09).
//
// Each step assembles the request from the agent's scope as it is now (system text from its
// sections, tool schemas from the one resolver, runtime-context notices), asks the model, and
// executes the tool calls of the reply through the resolver: a forged call to a tool outside
// the view gets an UNKNOWN_TOOL error result that the model sees, no body runs, and the turn
// goes on. The turn ends when the model answers without tool calls, stops for another reason
// (max-tokens, refusal, error, aborted), or the turn's abort signal fires; tool calls run under
// that signal, so aborting a turn cancels a child run a `subagent` call started.

import { Code, TckError } from './errors.mjs';
import { resultText, toolError } from './tool.mjs';

export const MAX_STEPS = 48;

/** Run one turn of `agent` with the user message `prompt`; returns {stopReason, output, toolResults}. */
export async function runTurn(host, agent, prompt, { signal } = {}) {
  if (agent.turn !== null) {
    throw new TckError(Code.INVALID_REQUEST, `agent ${agent.id} is already running a turn: `
      + 'wait for it to end, or abort it', { agent: agent.id });
  }
  const controller = new AbortController();
  const relay = () => controller.abort(signal.reason);
  if (signal) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', relay, { once: true });
  }
  agent.turn = { controller, start: agent.history.length };
  agent.structured = undefined;
  agent.history.push({ role: 'user', content: prompt });
  const toolResults = [];
  let stopReason = 'completed';
  let output = null;
  try {
    for (let step = 0; ; step += 1) {
      if (controller.signal.aborted) { stopReason = 'aborted'; break; }
      if (step >= MAX_STEPS) {
        stopReason = 'error';
        output = `the turn was stopped after ${MAX_STEPS} model requests`;
        break;
      }
      const reply = await host.gateway.complete(host.modelRequest(agent), controller.signal);
      if (controller.signal.aborted) { stopReason = 'aborted'; break; }
      agent.history.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls });
      output = reply.text;
      if (reply.stopReason !== 'completed') { stopReason = reply.stopReason; break; }
      if (reply.toolCalls.length === 0) break;
      for (const call of reply.toolCalls) {
        let result;
        if (controller.signal.aborted) {
          result = plain(toolError(null, 'aborted: the turn was aborted before this call ran'));
        } else if (call.malformed !== undefined) {
          result = plain(toolError(Code.INVALID_REQUEST, `the arguments of ${call.name} are not `
            + 'a JSON object: call it again with an object of its parameters'));
        } else {
          result = await host.execute(agent, call.name, call.arguments,
            { signal: controller.signal, callId: call.id });
        }
        toolResults.push(result);
        agent.history.push({ role: 'tool', toolCallId: call.id, content: resultText(result),
          isError: result.isError });
      }
    }
  } finally {
    signal?.removeEventListener('abort', relay);
    agent.turn = null;
    host.persist(agent);
  }
  if (agent.structured !== undefined && stopReason === 'completed') output = agent.structured;
  return { stopReason, output, toolResults };
}

/** Abort the agent's running turn (a no-op when it has none). */
export function abortTurn(agent, reason = 'aborted by the driver') {
  agent.turn?.controller.abort(reason);
}

function plain(result) {
  return { isError: result.isError, code: result.code, content: result.content };
}
