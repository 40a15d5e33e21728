// The roster for the JavaScript implementation: the same roles as the Python roster (both read
// ../roster.json through roster_data.mjs), the same validation and the same `delegate` tool
// (docs/promises.md, "The worked example").

import { runForTool, startChild } from '../../../implementations/javascript/src/delegation.mjs';
import { refusedStart, toolError } from '../../../implementations/javascript/src/tool.mjs';
import { delegateShape, requestFor, roleOf, TOOL_NAME } from './roster_data.mjs';

export { loadRoster, problemsOf, requestFor, TOOL_NAME, validate } from './roster_data.mjs';

export function delegateTool(host, roster, { request = requestFor } = {}) {
  return {
    ...delegateShape(roster),
    body: async (args, context) => {
      const { role, problem } = roleOf(roster, args);
      if (problem !== undefined) return toolError('INVALID_REQUEST', problem);
      let child;
      try {
        child = startChild(host, { parent: context.agent, ...request(roster, role, args.task) });
      } catch (error) {
        return refusedStart(error);
      }
      const outcome = await runForTool(host, child, args.task,
        { signal: context.signal, by: TOOL_NAME });
      if (outcome.stopReason !== 'completed') {
        return toolError(null, `the ${role.id} child stopped with "${outcome.stopReason}"`);
      }
      return { role: role.id, tier: role.tier, output: outcome.output ?? null };
    },
  };
}
