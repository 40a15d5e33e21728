// The reserved code-execution tool run_code (TF-06, TF-12): offered in the ptc and both
// presentation modes, outside every filter. Its SDK binds exactly the scope's visible tools
// other than run_code, each binding calling back into the one resolver, so code can reach
// nothing the scope's schemas do not show.
//
// The code is JavaScript, run as the body of an async function in a fresh node:vm context
// whose globals are `tools` (one async function per binding), `call(name, args)` (any name,
// resolved at call time: a hidden name gives an UNKNOWN_TOOL error result) and `console.log`
// (collected). This is a convenience for trusted, same-process code, not a sandbox: the seeds
// are explicit that visibility is not authority.

import vm from 'node:vm';

import { Code, TckError } from './errors.mjs';
import { Origin, RUN_CODE, toolResult } from './tool.mjs';

const SYNC_TIMEOUT_MS = 2000;
const TOTAL_TIMEOUT_MS = 20000;

export function runCodeSchema(bindings) {
  const listed = bindings.length ? bindings.map((n) => `tools.${n}(args)`).join(', ') : 'none';
  return {
    name: RUN_CODE,
    description: 'Run JavaScript (the body of an async function; `return` a value). The SDK '
      + `functions are ${listed}; each returns {isError, code, content}.`,
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'JavaScript to run' } },
      required: ['code'],
    },
  };
}

/**
 * The run_code tool of one scope. `sdk()` gives the binding names at call time; `execute(name,
 * args, context)` is the resolver's execution for that scope.
 */
export function runCodeTool({ sdk, execute }) {
  const bindings = sdk();
  return {
    ...runCodeSchema(bindings),
    origin: Origin.RESERVED,
    async body(args, context) {
      if (typeof args?.code !== 'string') {
        throw new TckError(Code.INVALID_REQUEST, 'run_code takes {"code": "<JavaScript>"}');
      }
      const calls = [];
      const logs = [];
      const bridge = (name, callArgs) => {
        const promise = execute(String(name), callArgs ?? {}, context)
          .then((result) => { calls.push({ tool: String(name), isError: result.isError }); return result; });
        return promise;
      };
      const tools = Object.create(null);
      for (const name of sdk()) tools[name] = (callArgs) => bridge(name, callArgs);
      const sandbox = vm.createContext({
        tools: Object.freeze(tools),
        call: bridge,
        console: { log: (...items) => logs.push(items.map(String).join(' ')) },
      });
      let timer;
      try {
        const running = vm.runInContext(`(async () => {\n${args.code}\n})()`, sandbox,
          { timeout: SYNC_TIMEOUT_MS, filename: 'run_code.js' });
        const deadline = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`run_code exceeded ${TOTAL_TIMEOUT_MS} ms`)),
            TOTAL_TIMEOUT_MS);
        });
        const value = await Promise.race([running, deadline]);
        return toolResult({ result: plain(value), calls, logs });
      } catch (error) {
        return toolResult(`run_code failed: ${error?.message ?? error}`,
          { isError: true, code: null });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function plain(value) {
  try {
    return value === undefined ? null : JSON.parse(JSON.stringify(value));
  } catch {
    return String(value);
  }
}
