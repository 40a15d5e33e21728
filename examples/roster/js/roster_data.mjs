// The roster as data and rules, with no runtime in it: shared by the JavaScript implementation's
// roster (roster.mjs) and the DSH plugin (adapters/dsh/examples/roster/). Both read
// ../roster.json, the roster the Python example reads too (docs/promises.md).

import { readFileSync } from 'node:fs';

const WRITE_OR_EXEC = new Set(['write', 'edit', 'bash']);
export const TOOL_NAME = 'delegate';

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

/** The `delegate` tool as the model is offered it: its name, description and parameters (the
 * roster's roles as the enum of `role`). */
export function delegateShape(roster) {
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
  };
}

/** The role a `delegate` call names (`{ role }`), or why the call is refused (`{ problem }`). */
export function roleOf(roster, args) {
  const role = roster.roles.find((r) => r.id === args.role);
  if (role === undefined) return { problem: `role must be one of ${roster.roles.map((r) => r.id).join(', ')}` };
  if (typeof args.task !== 'string' || !args.task.trim()) return { problem: 'task must be a non-empty string' };
  return { role };
}

/** The start request of a role (override `requestFor` in a variant to break one promise). */
export function requestFor(roster, role, task) {
  return { provider: 'spawn', prompt: task, persona: role.prompt,
    toolFilter: { allow: [...roster.capabilities[role.capability]].sort() }, maxDepth: 1 };
}

