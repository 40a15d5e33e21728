// The broken rosters (the same four as examples/roster/broken.py), chosen by name; each loads
// in advisory mode, which warns and loads anyway: the case the promises check exists for.

import { loadRoster, requestFor } from '../../../../examples/roster/js/roster_data.mjs';

const PARENT_PERSONA = 'You are the orchestrator of this workspace; you decide who does what.';

function withRole(roster, id, change) {
  return { ...roster, roles: roster.roles.map((r) => (r.id === id ? { ...r, ...change } : r)) };
}

export const VARIANTS = {
  review_gets_write: () => ({ roster: withRole(loadRoster(), 'reviewer-strict', { capability: 'workspace' }), mode: 'advisory' }),
  batch_gets_tools: () => ({ roster: withRole(loadRoster(), 'batch-summarizer', { capability: 'read-only' }), mode: 'advisory' }),
  persona_leaks: () => ({
    request: (roster, role, task) => {
      const out = requestFor(roster, role, task);
      if (role.id === 'planner') out.persona = `${PARENT_PERSONA}\n${role.prompt}`;
      return out;
    },
  }),
  delegates_again: () => ({
    request: (roster, role, task) => {
      const out = requestFor(roster, role, task);
      if (role.id === 'researcher') {
        out.toolFilter = { allow: [...out.toolFilter.allow, 'delegate'] };
        delete out.maxDepth;
      }
      return out;
    },
  }),
};

export function variant(name) {
  if (name === undefined || name === '') return {};
  const make = VARIANTS[name];
  if (make === undefined) {
    throw new Error(`unknown SUBAGENT_TCK_ROSTER_VARIANT ${name}: use ${Object.keys(VARIANTS).join(', ')}`);
  }
  return make();
}
