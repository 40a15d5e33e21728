// The driver's run-code operation (docs/driver-api.md#run-code) over DSH's real Code Mode: the
// agent's model calls DSH's reserved `run_code` transport once, with a TypeScript program of SDK
// calls, `tools[name](arguments)` each, one after the other. The program goes through DSH's whole path: ToolRuntime's
// `run_code` definition (dsh-tools code-mode), the SDK bindings DSH generates for the agent's
// scope, the worker-thread CodeRuntime that runs the program, and the full tool pipeline each
// binding call re-enters. Nothing here resolves a name itself: a name DSH does not bind is
// seen by the program as a missing own property of `tools` and answered UNKNOWN_TOOL, and no
// body runs. In native mode DSH offers no run_code, so nothing is bound (TF-12).

import { Code } from './errors.mjs';

/**
 * The program: the calls as a JSON literal (valid TypeScript), each made through the `tools`
 * namespace DSH's worker builds from the SDK bindings, one after the other. A failed binding
 * call rejects with DSH's ToolCallError (tool name and message only).
 */
export function sdkCallProgram(calls) {
  return `const calls = ${JSON.stringify(calls)};\n`
    + 'const out = [];\n'
    + 'for (const { name, arguments: args } of calls) {\n'
    + '  const bound = Object.hasOwn(tools, name) ? tools[name] : undefined;\n'
    + "  if (typeof bound !== 'function') { out.push({ unbound: true }); continue; }\n"
    + '  try { out.push({ result: await bound(args) }); }\n'
    + '  catch (error) { out.push({ failed: String(error?.message ?? error) }); }\n'
    + '}\n'
    + 'return out;';
}

const unknownTool = (message) => ({ isError: true, code: Code.UNKNOWN_TOOL, content: message });

export async function runCode(host, agentId, calls) {
  const agent = host.agent(agentId);
  if (host.ctx.tools.modeFor(agent) === 'native') {
    return calls.map(({ name }) => unknownTool(`run_code is not offered in native mode, so `
      + `DSH's SDK binds no tool (not ${name}); set the presentation mode to ptc or both`));
  }
  host.calls = (host.calls ?? 0) + 1;
  const program = sdkCallProgram(calls.map(({ name, arguments: args }) => ({ name,
    arguments: args ?? {} })));
  const result = await host.ctx.tools.execute({
    callId: `run-code-${host.calls}`, name: 'run_code', agent,
    arguments: { code: program, description: `${calls.length} SDK call(s)` },
    signal: new AbortController().signal,
  });
  const values = result.value?.result;
  if (result.isError || !Array.isArray(values) || values.length !== calls.length) {
    // the program itself failed (DSH's CodeRunFailedError and its text): every call with it
    const text = (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text)
      .join('');
    const code = result.error?.info?.code === 'UNKNOWN_TOOL' ? Code.UNKNOWN_TOOL : null;
    return calls.map(() => ({ isError: true, code, content: text }));
  }
  return values.map((value, i) => {
    if (value?.unbound === true) {
      return unknownTool(`DSH's run_code SDK binds no tool named ${calls[i].name} in this scope`);
    }
    if (typeof value?.failed === 'string') {
      return { isError: true, code: /UNKNOWN_TOOL/.test(value.failed) ? Code.UNKNOWN_TOOL : null,
        content: value.failed };
    }
    return { isError: false, code: null, content: value?.result ?? null };
  });
}
