// What a DSH turn came to, in the kit's vocabulary: its stop reason, its output and the tool
// results its loop appended (docs/dsh.md). A leaf under the host, the delegation and the
// continuable path, which all read outcomes from DSH's session log.

import { finalAssistantOutput } from '@deepseek-ai/dsh-subagent';
import { foldConsumedWork } from '@deepseek-ai/dsh-agent';

import { Code } from './errors.mjs';

/** DSH's turn outcome (turn/end reason) in the seam's vocabulary, as DSH's driver maps it. */
function stopReasonOf(reason) {
  switch (reason?.kind) {
    case 'completed': return 'completed';
    case 'max-tokens': return 'max-tokens';
    case 'aborted': return 'aborted';
    case 'blocked': return 'refusal';
    default: return 'error';
  }
}

const blocksText = (blocks) => (Array.isArray(blocks) ? blocks : [])
  .map((b) => (b.type === 'text' ? b.text : '')).join('');

/** The kit's ToolResults from the tool/result events DSH's loop appended. */
export function toolResultsOf(events) {
  return events.filter((e) => e.type === 'tool/result').map((e) => {
    const block = e.data.message?.content?.[0] ?? {};
    const isError = block.isError === true;
    return { isError, code: isError ? translateToolError({ info: e.data.error }) : null,
      content: blocksText(block.content) };
  });
}

/** The outcome of the turn(s) after `boundary` in a DSH session log. */
export function outcomeOf(events, boundary) {
  const own = events.slice(boundary);
  return { stopReason: stopReasonOf(foldConsumedWork(own).end?.data.reason),
    output: blocksText(finalAssistantOutput(own) ?? []), toolResults: toolResultsOf(own) };
}

/** DSH's failure info code (HarnessError) mapped onto the kit's vocabulary where it is the same. */
export function translateToolError(error) {
  const code = error?.info?.code;
  if (code === 'UNKNOWN_TOOL' || code === 'TOOL_NOT_FOUND') return Code.UNKNOWN_TOOL;
  return code ?? null;
}
