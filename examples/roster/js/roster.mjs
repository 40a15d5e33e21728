// The roster for the JavaScript implementation: the same roles as the Python roster (both read
// ../roster.json), the same load-time validation and the same `delegate` tool
// (docs/promises.md, "The worked example").

import { readFileSync } from 'node:fs';

import { runChild, startChild } from '../../../implementations/javascript/src/delegation.mjs';
import { TckError } from '../../../implementations/javascript/src/errors.mjs';
import { Kind } from '../../../implementations/javascript/src/events.mjs';
import { toolError } from '../../../implementations/javascript/src/tool.mjs';

export const TOOL_NAME = 'delegate';
const WRITE_OR_EXEC = new Set(['write', 'edit', 'bash']);

export function loadRoster() {
  const data = JSON.parse(readFileSync(new URL('../roster.json', import.meta.url), 'utf8'));
  return { roles: data.roles, capabilities: data.capabilities, tiers: data.tiers,
    allowedModels: [] };
}

/** Every problem of a roster (the Python roster's problems_of, rule for rule). */
export function problemsOf(roster) {
  const found = [];
  const seen = new Set();
  for (const role of roster.roles) {
    if (seen.has(role.id)) found.push(`role id '${role.id}' is used twice`);
    seen.add(role.id);
    if (!(role.tier in roster.tiers)) found.push(`role '${role.id}': tier '${role.tier}' does not exist`);
    if (!(role.capability in roster.capabilities)) {
      found.push(`role '${role.id}': capability set '${role.capability}' does not exist`);
      continue;
    }
    const tools = roster.capabilities[role.capability];
    if (role.kind === 'batch' && tools.length) {
      found.push(`batch role '${role.id}' gets tools ${JSON.stringify(tools)}; batch roles get none`);
    }
    const risky = tools.filter((t) => WRITE_OR_EXEC.has(t));
    if ((role.kind === 'review' || role.kind === 'research') && risky.length) {
      found.push(`${role.kind} role '${role.id}' gets write/execute tools ${JSON.stringify(risky)}`);
    }
  }
  if (roster.allowedModels.length) {
    for (const [name, tier] of Object.entries(roster.tiers)) {
      if (!roster.allowedModels.includes(tier.model)) {
        found.push(`tier '${name}' resolves to model '${tier.model}', outside allowed models`);
      }
    }
  }
  return found;
}

/** advisory: warn (stderr) and load; strict: throw listing every problem. */
export function validate(roster, mode = 'advisory') {
  if (mode !== 'advisory' && mode !== 'strict') throw new Error(`mode is advisory or strict, not ${mode}`);
  const found = problemsOf(roster);
  if (found.length && mode === 'strict') throw new Error(`roster refused: ${found.join('; ')}`);
  for (const problem of found) process.stderr.write(`warning: roster: ${problem}\n`);
  return found;
}

export function routingSection(roster) {
  return ['## Delegation shapes', 'Call `delegate` with one of these roles:',
    ...roster.roles.map((r) => `- \`${r.id}\`: ${r.prompt}`)].join('\n');
}

/** The start request of a role (override `requestFor` in a variant to break one promise). */
export function requestFor(roster, role, task) {
  return { provider: 'spawn', prompt: task, persona: role.prompt,
    toolFilter: { allow: [...roster.capabilities[role.capability]].sort() }, maxDepth: 1 };
}

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
