// Tools and tool results.
//
// A tool is {name, description, parameters, body}; `body(arguments, context)` returns the
// result content (or a ToolResult made by `toolResult`/`toolError`), may be async, and may
// throw a TckError, which becomes an error result carrying its code. The context is
// {agent, origin, signal, callId}: the calling agent, where the tool came from, the abort
// signal of the turn the call runs under, the model's call id.

import { TckError } from './errors.mjs';

export const RUN_CODE = 'run_code';
export const STRUCTURED_OUTPUT = 'structured_output';
export const Origin = Object.freeze({ GLOBAL: 'global', LOCAL: 'local', RESERVED: 'reserved' });

const RESULT = Symbol('toolResult');

export function toolResult(content, { isError = false, code = null } = {}) {
  return { [RESULT]: true, isError, code, content };
}

export function toolError(code, message) {
  return toolResult(code ? `${code}: ${message}` : message, { isError: true, code });
}

/** The tool error of a start the host refused (a TckError); anything else is thrown on. */
export function refusedStart(error) {
  if (!(error instanceof TckError)) throw error;
  return toolError(error.code, `no child was started: ${error.reason}`);
}

/** Run a tool body and make whatever it did a plain {isError, code, content}. */
export async function invoke(tool, args, context) {
  try {
    const value = await tool.body(args, context);
    if (value && value[RESULT]) {
      return { isError: value.isError, code: value.code, content: value.content };
    }
    return { isError: false, code: null, content: value ?? null };
  } catch (error) {
    if (error instanceof TckError) return plain(toolError(error.code, error.reason));
    return plain(toolError(null, `the tool ${tool.name} failed: ${error?.message ?? error}`));
  }
}

function plain(result) {
  return { isError: result.isError, code: result.code, content: result.content };
}

/** A tool's text for a model's tool message. */
export function resultText(result) {
  const { content } = result;
  if (typeof content === 'string') return content;
  return JSON.stringify(content ?? null);
}

export function schemaOf(tool) {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

/** A driver-registered tool: its body echoes the call (and the resolver logs it). */
export function echoTool(spec, origin) {
  return {
    name: spec.name,
    description: spec.description ?? '',
    parameters: spec.parameters ?? { type: 'object' },
    body: (args, context) => ({ tool: spec.name, origin, agent: context.agent, arguments: args }),
  };
}
