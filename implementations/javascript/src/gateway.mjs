// The model: the kit's gateway, OpenAI Chat Completions (non-streaming) at
// {gatewayUrl}/agents/{agentId}/v1/chat/completions. The agent id in the path attributes every
// request to the agent that sent it.
//
// Runtime-context notices (ST-08) travel as user messages prefixed "[runtime-context] " after
// the conversation, only in the request they belong to. The stop reasons come back from
// finish_reason: stop/tool_calls -> completed, length -> max-tokens, content_filter -> refusal,
// and the extensions error and aborted. A failing, unreachable or stalled gateway is a reply
// with stop reason error (never an exception into the loop); an abort of the turn cancels the
// request in flight and reads as stop reason aborted.

import http from 'node:http';
import https from 'node:https';

const FINISH = {
  stop: 'completed',
  tool_calls: 'completed',
  function_call: 'completed',
  length: 'max-tokens',
  content_filter: 'refusal',
  error: 'error',
  aborted: 'aborted',
};

export const CONTEXT_PREFIX = '[runtime-context]';

export class GatewayClient {
  constructor(baseUrl, { timeoutMs = 120000 } = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = timeoutMs;
    const { protocol } = new URL(this.baseUrl);
    this.agent = new (protocol === 'https:' ? https : http).Agent({ keepAlive: true });
  }

  close() {
    this.agent.destroy();
  }

  urlFor(agent) {
    return `${this.baseUrl}/agents/${encodeURIComponent(agent)}/v1/chat/completions`;
  }

  /**
   * One model request. `request`: {agent, system, tools, messages, context}; messages are
   * {role, content, toolCalls?, toolCallId?, isError?}. Returns {text, toolCalls, stopReason}.
   */
  async complete(request, signal) {
    if (signal?.aborted) return { text: null, toolCalls: [], stopReason: 'aborted' };
    let answer;
    try {
      answer = await post(this.urlFor(request.agent), JSON.stringify(toChat(request)),
        { signal, timeoutMs: this.timeoutMs, agent: this.agent });
    } catch (error) {
      if (signal?.aborted) return { text: null, toolCalls: [], stopReason: 'aborted' };
      return failed(`the model gateway is unreachable: ${error.message}`);
    }
    const { status, text } = answer;
    if (status !== 200) {
      return failed(`the model gateway answered HTTP ${status}: ${text.slice(0, 300)}`);
    }
    try {
      return fromChat(JSON.parse(text));
    } catch (error) {
      return failed(`the model gateway answered something that is not a chat completion: `
        + error.message);
    }
  }
}

/** One POST over a keep-alive agent; rejects on a network failure, the timeout or the signal. */
function post(url, body, { signal, timeoutMs, agent }) {
  return new Promise((resolve, reject) => {
    const client = url.startsWith('https:') ? https : http;
    const request = client.request(url, {
      method: 'POST',
      agent,
      signal,
      headers: { 'content-type': 'application/json', accept: 'application/json',
        'content-length': Buffer.byteLength(body) },
    }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode,
        text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.setNoDelay(true);
    request.setTimeout(timeoutMs, () => {
      request.destroy(new Error(`no answer within ${timeoutMs} ms`));
    });
    request.on('error', reject);
    request.end(body);
  });
}

function failed(message) {
  return { text: message, toolCalls: [], stopReason: 'error' };
}

export const MODEL_PLACEHOLDER = 'subagent-tck';

export function toChat(request) {
  const messages = [{ role: 'system', content: request.system }];
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      const item = { role: 'assistant', content: message.content ?? null };
      if (message.toolCalls?.length) {
        item.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name,
            arguments: call.malformed ?? JSON.stringify(call.arguments ?? {}) },
        }));
      }
      messages.push(item);
    } else if (message.role === 'tool') {
      const item = { role: 'tool', content: message.content ?? '', tool_call_id: message.toolCallId };
      if (message.isError) item.is_error = true;
      messages.push(item);
    } else {
      messages.push({ role: message.role, content: message.content ?? '' });
    }
  }
  for (const notice of request.context ?? []) {
    messages.push({ role: 'user', content: `${CONTEXT_PREFIX} ${notice}` });
  }
  // the model the runtime asked for; a runtime that chooses none sends the placeholder, which
  // the kit records as no model reported (docs/driver-api.md, "Model gateway")
  const body = { model: typeof request.model === 'string' && request.model ? request.model
    : MODEL_PLACEHOLDER, messages };
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  return body;
}

export function fromChat(body) {
  const choice = body?.choices?.[0];
  if (!choice || typeof choice.message !== 'object' || choice.message === null) {
    throw new Error('the answer has no choices[0].message');
  }
  const finish = choice.finish_reason ?? 'stop';
  if (!Object.hasOwn(FINISH, finish)) throw new Error(`unknown finish_reason ${finish}`);
  const { content } = choice.message;
  let text = null;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    text = content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  }
  const toolCalls = (choice.message.tool_calls ?? []).map((call, index) => {
    const raw = call?.function?.arguments;
    let args = {};
    let malformed = false;
    try {
      if (typeof raw === 'string' && raw.trim()) args = JSON.parse(raw);
      else if (raw !== undefined && raw !== null && raw !== '') args = raw;
    } catch {
      malformed = true;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      malformed = true;
      args = {};
    }
    const out = { id: String(call?.id ?? `call-${index}`), name: String(call?.function?.name ?? ''),
      arguments: args };
    if (malformed) out.malformed = typeof raw === 'string' ? raw : JSON.stringify(raw);
    return out;
  });
  return { text, toolCalls, stopReason: FINISH[finish] };
}
