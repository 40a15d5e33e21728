// The run_code SDK as the model reads it. In code mode (the kit's ptc and both) DSH tells the
// model which tools its program may call in one prompt section, `tools:sdk` (dsh-tools,
// ToolRuntime.sdkSection, rendered by renderToolsSdk for the TypeScript worker runtime): usage
// instructions, then a TypeScript block declaring `interface ToolArgsMap` (one member per tool,
// with its description as a JSDoc line), `interface ToolOutputMap` (one member per tool: its
// output type), `type ToolName = keyof ToolOutputMap` and `declare const tools`. A name is
// written bare when it is an identifier, else as a JSON string (renderKey).
//
// sdk-bindings answers the names this text declares, read from the agent's assembly exactly as
// the model request's system prompt is built, not from ctx.tools.sdkSchemas(): TF-12's "one
// resolver" is judged against what the model is told (docs/dsh.md, "Code mode's SDK text").

import { Code, TckError } from './errors.mjs';

export const SDK_SECTION = 'tools:sdk';

const MEMBER = /^ {2}("(?:[^"\\]|\\.)*"|[^\s":]+): /;

/**
 * The tool names a TypeScript SDK text declares: the members of its ToolOutputMap, one per
 * line at the first indent (a multi-line output type nests deeper and closes with `  };`).
 * Null when the text has no ToolOutputMap, or it never closes.
 */
export function declaredTools(text) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('interface ToolOutputMap {'));
  if (start < 0) return null;
  if (lines[start] === 'interface ToolOutputMap {}') return [];
  const names = [];
  for (const line of lines.slice(start + 1)) {
    if (line === '}') return names;
    const member = MEMBER.exec(line);
    if (member !== null) {
      names.push(member[1].startsWith('"') ? JSON.parse(member[1]) : member[1]);
    }
  }
  return null;
}

/** The names the agent's SDK text declares ([] when DSH renders no SDK: native mode). */
export function sdkTextBindings(text) {
  if (text === '') return [];
  const names = declaredTools(text);
  if (names === null) {
    throw new TckError(Code.INVALID_CONFIG, `DSH's ${SDK_SECTION} prompt section declares no `
      + 'TypeScript ToolOutputMap this adapter can read (it reads the worker-thread runtime\'s '
      + 'TypeScript SDK only)', { section: SDK_SECTION });
  }
  return names;
}
