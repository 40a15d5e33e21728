// The one resolver (TF-12): a scope's view is the single set behind its wire schemas, name
// lookup, execution and run_code SDK bindings. Everything here is computed from the live
// registry and the scope at the moment of the call (TF-09..TF-11).
//
// View (TF-01..TF-06): the global tools every restriction admits (TF-01, TF-02), in registration
// order, a scope-local tool of the same name standing in the global's place (TF-05); then the
// other scope-local tools, never filtered (TF-04); then run_code where the mode offers it,
// outside the filter (TF-06). Presentation: native puts every visible tool on the wire; ptc
// only run_code, the others being SDK bindings; both puts all of them and run_code.

import { Code } from './errors.mjs';
import { runCodeTool } from './run_code.mjs';
import { Origin, RUN_CODE, invoke, schemaOf, toolError } from './tool.mjs';

export class Resolver {
  constructor({ registry, onInvoke }) {
    this.registry = registry;
    this.onInvoke = onInvoke; // ({tool, agent, origin, arguments}) when a body runs
  }

  /** The view of `scope`: [{name, origin, tool}] (run_code's tool is made per scope). */
  view(scope, agentId) {
    const entries = this.#filtered(scope);
    if (scope.mode !== 'native') {
      const sdk = () => this.sdk(scope);
      const execute = (name, args, context) => this.execute(scope, agentId, name, args, context);
      entries.push({ name: RUN_CODE, origin: Origin.RESERVED, tool: runCodeTool({ sdk, execute }) });
    }
    return entries;
  }

  /** The globals every restriction admits (locals standing in their place), then the locals. */
  #filtered(scope) {
    const locals = new Map(scope.locals().map((tool) => [tool.name, tool]));
    const restrictions = scope.restrictions();
    const entries = [];
    const placed = new Set();
    for (const tool of this.registry.tools()) {
      if (!restrictions.every((r) => r.admits(tool.name))) continue;
      placed.add(tool.name);
      const local = locals.get(tool.name);
      entries.push(local ? { name: tool.name, origin: Origin.LOCAL, tool: local }
        : { name: tool.name, origin: Origin.GLOBAL, tool });
    }
    for (const tool of locals.values()) {
      if (!placed.has(tool.name)) entries.push({ name: tool.name, origin: Origin.LOCAL, tool });
    }
    return entries;
  }

  /** The global view: the registry itself, no restriction, no local, no run_code. */
  globalView() {
    return this.registry.tools().map((tool) => ({ name: tool.name, origin: Origin.GLOBAL, tool }));
  }

  /** The wire tool schemas the scope's next model request carries. */
  schemas(scope, agentId) {
    const view = this.view(scope, agentId);
    const shown = scope.mode === 'ptc' ? view.filter((e) => e.origin === Origin.RESERVED) : view;
    return shown.map((entry) => schemaOf(entry.tool));
  }

  /** TF-12: the run_code SDK binds exactly the visible tools other than run_code. */
  sdk(scope) {
    if (scope.mode === 'native') return [];
    return this.#filtered(scope).map((entry) => entry.name);
  }

  lookup(scope, agentId, name) {
    return this.view(scope, agentId).find((entry) => entry.name === name) ?? null;
  }

  /**
   * Execute `name` as the scope resolves it now. A name outside the view is an UNKNOWN_TOOL
   * error result and no body runs; the caller's turn goes on.
   */
  async execute(scope, agentId, name, args, context = {}) {
    const entry = this.lookup(scope, agentId, name);
    if (entry === null) {
      return plain(toolError(Code.UNKNOWN_TOOL, `no tool named ${name} is visible to this `
        + 'agent: call one of the tools offered in this request'));
    }
    const argumentsObject = args !== null && typeof args === 'object' && !Array.isArray(args)
      ? args : {};
    this.onInvoke({ tool: name, agent: agentId, origin: entry.origin, arguments: argumentsObject });
    return invoke(entry.tool, argumentsObject, { ...context, agent: agentId, origin: entry.origin });
  }
}

/**
 * The driver's run-code operation (docs/driver-api.md#run-code): the agent's model calls
 * run_code once, with a program that makes `calls` ([{name, arguments}]) to the SDK one after
 * the other. The program goes through the scope's own run_code tool and its generated `tools`
 * bindings (never the `call` escape hatch), so what it reaches is what the SDK binds. A name
 * the SDK does not bind, or any name where the mode offers no run_code, is an UNKNOWN_TOOL
 * error result and no body runs.
 */
export function sdkCallProgram(calls) {
  return `const calls = ${JSON.stringify(calls)};\n`
    + 'const out = [];\n'
    + 'for (const { name, arguments: args } of calls) {\n'
    + '  const bound = Object.hasOwn(tools, name) ? tools[name] : undefined;\n'
    + '  out.push(typeof bound === \'function\' ? { result: await bound(args) } : { unbound: true });\n'
    + '}\n'
    + 'return out;';
}

const unbound = (name) => plain(toolError(Code.UNKNOWN_TOOL, `the run_code SDK binds no tool `
  + `named ${name} in this scope`));

export async function runCode(resolver, scope, agentId, calls, context = {}) {
  if (scope.mode === 'native') {
    return calls.map(({ name }) => plain(toolError(Code.UNKNOWN_TOOL, `run_code is not offered `
      + `in native mode, so its SDK binds no tool (not ${name}); set the presentation mode to `
      + 'ptc or both')));
  }
  const program = sdkCallProgram(calls.map(({ name, arguments: args }) => ({ name: String(name),
    arguments: args ?? {} })));
  const ran = await resolver.execute(scope, agentId, RUN_CODE, { code: program }, context);
  const values = ran.content?.result;
  if (ran.isError || !Array.isArray(values) || values.length !== calls.length) {
    return calls.map(() => plain(ran)); // the program failed: every call with it
  }
  return values.map((value, i) => {
    if (value?.unbound === true) return unbound(calls[i].name);
    const result = value?.result ?? {};
    return { isError: Boolean(result.isError), code: result.code ?? null,
      content: result.content ?? null };
  });
}

function plain(result) {
  return { isError: result.isError, code: result.code, content: result.content };
}
