// A live agent: its id, its session, its scope, its runtime depth, its model and its
// conversation.
//
// The durable depth is not kept here: it lives in the session header and is read from the
// store at every start (DE-02, DE-06). `loadedDepth` is the header depth the agent was loaded
// with, used only to report a depth when the stored header has since been overwritten with a
// value outside the domain.

import { Code, TckError } from './errors.mjs';

export class Agent {
  constructor({ id, session, scope, loadedDepth, runtimeDepth, provider = null,
    parent = null, history = [], model = null }) {
    this.id = id;
    this.session = session;
    this.scope = scope;
    this.loadedDepth = loadedDepth;
    this.runtimeDepth = runtimeDepth; // undefined: no runtime subagentDepth
    this.provider = provider; // the provider that runs it (a child), or null (top level)
    this.parent = parent; // the parent agent's id, or null
    this.history = history; // [{role, content, toolCalls?, toolCallId?, isError?}]
    this.turn = null; // {controller, start} while a turn runs
    this.structured = undefined; // the last structured_output of the running turn
    this.model = model; // the model its requests name (MO-01), or null: none
  }

  /** The messages of the turns that are over (a fork child is seeded with them). */
  completedMessages() {
    const end = this.turn ? this.turn.start : this.history.length;
    return this.history.slice(0, end).map((message) => structuredClone(message));
  }
}

/** A model name (MO-01: a non-empty string), or `code` naming the fix. */
export function requireModel(value, what, code = Code.INVALID_REQUEST) {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TckError(code, `${what} must be a model name (a non-empty string), not `
      + `${JSON.stringify(value)}: name a model or leave it out (the parent's model)`);
  }
  return value;
}
