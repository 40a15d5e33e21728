// The live global tool registry (TF-06, TF-09..TF-11): the deployment's global tools in
// registration order. Its names are the global restrictable set that restrictions are
// validated against (TF-08). Views are resolved from it at every read, so a registration or a
// removal reaches every scope at once.

import { Code, TckError } from './errors.mjs';
import { RUN_CODE } from './tool.mjs';

export function checkToolName(name, where) {
  if (typeof name !== 'string' || name.length === 0) {
    throw new TckError(Code.INVALID_REQUEST, `a ${where} tool needs a non-empty string name`);
  }
  if (name === RUN_CODE) {
    throw new TckError(Code.RESERVED_NAME, `${RUN_CODE} is the reserved code-execution tool `
      + '(TF-06): no tool may register or shadow that name; choose another name',
    { name });
  }
}

export class Registry {
  #tools = new Map();

  register(tool) {
    checkToolName(tool.name, 'global');
    if (this.#tools.has(tool.name)) {
      throw new TckError(Code.DUPLICATE_TOOL, `a global tool named ${tool.name} is already `
        + 'registered: unregister it first or choose another name', { name: tool.name });
    }
    this.#tools.set(tool.name, tool);
  }

  unregister(name) {
    const tool = this.#tools.get(name);
    if (tool === undefined) {
      throw new TckError(Code.UNKNOWN_TOOL, `there is no global tool named ${name} to `
        + 'unregister', { name });
    }
    this.#tools.delete(name);
    return tool;
  }

  get(name) {
    return this.#tools.get(name);
  }

  has(name) {
    return this.#tools.has(name);
  }

  /** The global restrictable set, in registration order. */
  names() {
    return [...this.#tools.keys()];
  }

  tools() {
    return [...this.#tools.values()];
  }
}
