// The roster for the JavaScript implementation: the same roles as the Python roster (both read
// ../roster.json through roster_data.mjs), the same validation and the same `delegate` tool
// (docs/promises.md, "The worked example").

import { runChild, startChild } from '../../../implementations/javascript/src/delegation.mjs';
import { TckError } from '../../../implementations/javascript/src/errors.mjs';
import { Kind } from '../../../implementations/javascript/src/events.mjs';
import { toolError } from '../../../implementations/javascript/src/tool.mjs';
import { requestFor, routingSection } from './roster_data.mjs';

export { loadRoster, problemsOf, requestFor, validate } from './roster_data.mjs';
export const TOOL_NAME = 'delegate';

export function delegateTool(host, roster, { request = requestFor } = {}) {
  return {
    name: TOOL_NAME,
    description: `Delegate a task to a child agent in one of the roster's roles.\n\n${routingSection(roster)}`,
    parameters: {
      type: 'object',
      properties: {
        role: { type: 'string', enum: roster.roles.map((r) => r.id) },
        task: { type: 'string', description: 'The whole task for the child.' },
      },
      required: ['role', 'task'],
      additionalProperties: false,
    },
    body: async (args, context) => {
      const role = roster.roles.find((r) => r.id === args.role);
      if (role === undefined) {
        return toolError('INVALID_REQUEST', `role must be one of ${roster.roles.map((r) => r.id).join(', ')}`);
      }
      if (typeof args.task !== 'string' || !args.task.trim()) {
        return toolError('INVALID_REQUEST', 'task must be a non-empty string');
      }
      let child;
      try {
        child = startChild(host, { parent: context.agent, ...request(roster, role, args.task) });
      } catch (error) {
        if (!(error instanceof TckError)) throw error;
        return toolError(error.code, `no child was started: ${error.reason}`);
      }
      let outcome;
      try {
        outcome = await runChild(host, child, args.task, { signal: context.signal });
      } finally {
        host.unpublish(child, Kind.AGENT_DISPOSED, { by: TOOL_NAME });
      }
      if (outcome.stopReason !== 'completed') {
        return toolError(null, `the ${role.id} child stopped with "${outcome.stopReason}"`);
      }
      return { role: role.id, tier: role.tier, output: outcome.output ?? null };
    },
  };
}
