// The broken rosters (the same four as examples/roster/broken.py), by name: each changes one
// role's start request or loads in advisory mode, which warns and loads anyway: the case the
// promises check exists for. Shared by the JavaScript roster's server (server.mjs) and the DSH
// plugin (adapters/dsh/examples/roster/variants.mjs).

import { loadRoster, requestFor } from './roster_data.mjs';

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
