// The model glue: a DSH LlmAdapter (dsh-llm's provider seam) serving the route `tck-gateway`
// over the kit's gateway (gateway.mjs, OpenAI Chat Completions, non-streaming). DSH's agent
// loop asks its model through ctx.llm.stream(GenerateOptions); this adapter turns one such
// call into one gateway request and answers with DSH's raw chunk protocol.
//
// Attribution: DSH stamps GenerateOptions.sessionId, and a DSH agent's id IS its session id
// (ctx.agents.get(SessionId)), so the gateway path names the agent the kit knows.
// Runtime context (ST-08): DSH injects its runtime statements as user messages with a `plugin`
// source; they travel as the kit's `[runtime-context] ` notices, in the request that carries
// them. A refusal has no DSH finish kind: content_filter becomes an error finish whose failure
// code is REFUSAL (the loop records the turn as failed, which is DSH's behaviour).

import { LlmAdapter } from '@deepseek-ai/dsh-llm';

import { CONTEXT_PREFIX } from './gateway.mjs';

export const ROUTE = 'tck-gateway';

const textOf = (blocks) => (blocks ?? []).map((block) => {
  if (block.type === 'text') return block.text;
  if (block.type === 'tool-result') return textOf(block.content);
  return '';
}).join('');

/** DSH messages -> the gateway client's neutral messages. */
export function toRequestMessages(messages) {
  const out = [];
  for (const message of messages) {
    const blocks = message.content ?? [];
    if (message.role === 'assistant') {
      const calls = blocks.filter((b) => b.type === 'tool-call')
        .map((b) => ({ id: b.id, name: b.name, arguments: {}, malformed: b.arguments || '{}' }));
      const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join('');
      out.push({ role: 'assistant', content: text || null, toolCalls: calls });
      continue;
    }
    const results = blocks.filter((b) => b.type === 'tool-result');
    for (const result of results) {
      out.push({ role: 'tool', toolCallId: result.toolCallId, content: textOf(result.content),
        isError: result.isError === true });
    }
    const text = textOf(blocks.filter((b) => b.type !== 'tool-result'));
    if (results.length && !text) continue;
    if (message.source?.kind === 'plugin') {
      out.push({ role: 'user', content: `${CONTEXT_PREFIX} ${text}` });
    } else {
      out.push({ role: message.role === 'system' ? 'system' : 'user', content: text });
    }
  }
  return out;
}

function failure(code, message) {
  return { kind: 'error', failure: { code, message } };
}

export class GatewayLlmAdapter extends LlmAdapter {
  constructor(gateway) {
    super();
    this.gateway = gateway;
  }

  async* stream(options) {
    const agent = String(options.sessionId ?? 'unattributed');
    const reply = await this.gateway.complete({
      agent,
      // the model DSH resolved for this agent (its agentOptions.model): the kit records it
      model: typeof options.model === 'string' ? options.model : undefined,
      system: options.system ?? '',
      tools: (options.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? '',
        parameters: t.parameters ?? {} })),
      messages: toRequestMessages(options.messages ?? []),
      context: [],
    }, options.signal);
    let index = 0;
    if (reply.stopReason === 'aborted') {
      yield { type: 'finish', reason: { kind: 'aborted',
        failure: { code: 'ABORTED', message: 'the turn was aborted' } } };
      return;
    }
    if (reply.stopReason === 'error') {
      yield { type: 'finish', reason: failure('GATEWAY', reply.text ?? 'the model failed') };
      return;
    }
    if (reply.text) {
      yield { type: 'block-start', index, blockType: 'text' };
      yield { type: 'text-delta', index, text: reply.text };
      yield { type: 'block-end', index, block: { type: 'text', text: reply.text } };
      index += 1;
    }
    for (const call of reply.toolCalls) {
      const args = call.malformed ?? JSON.stringify(call.arguments ?? {});
      yield { type: 'block-start', index, blockType: 'tool-call' };
      yield { type: 'tool-call-delta', index, id: call.id, name: call.name, argumentsDelta: args };
      yield { type: 'block-end', index,
        block: { type: 'tool-call', id: call.id, name: call.name, arguments: args } };
      index += 1;
    }
    yield { type: 'usage', usage: { inputTokens: 0, outputTokens: 0 } };
    if (reply.stopReason === 'refusal') {
      yield { type: 'finish', reason: failure('REFUSAL', 'the model refused (content_filter)') };
    } else if (reply.stopReason === 'max-tokens') {
      yield { type: 'finish', reason: { kind: 'max-tokens' } };
    } else if (reply.toolCalls.length) {
      yield { type: 'finish', reason: { kind: 'tool-calls' } };
    } else {
      yield { type: 'finish', reason: { kind: 'stop' } };
    }
  }
}
