// Tool restrictions {allow?, deny?} over the names of global tools (TF-01, TF-02, TF-07, TF-08,
// TF-09..TF-11, TF-14, TF-15).
//
// A restriction is validated when it is installed, against the global restrictable set as it
// is at that moment (the names of the global tools registered now): neither list given (or
// both null) is TF-07's no-op, a name outside the set (a misspelling, a scope-local-only name,
// the reserved run_code) is TF-08's unknown name, and every such name is listed. The values are
// copied. Once installed, a restriction is a live predicate: allow before deny, evaluated
// against whatever the registry holds when a view is resolved.
//
// A spawn policy (SP-01) is the same shape over the deployment's preset names: a Restriction
// read over presets, validated the same way when installed (INVALID_SPAWN_POLICY).

import { Code, TckError } from './errors.mjs';

export class Restriction {
  constructor(allow, deny) {
    this.allow = allow === null ? null : new Set(allow);
    this.deny = deny === null ? null : new Set(deny);
    Object.freeze(this);
  }

  /** TF-01: admitted iff (no allow or named in allow) and (no deny or not named in deny). */
  admits(name) {
    if (this.allow !== null && !this.allow.has(name)) return false;
    return this.deny === null || !this.deny.has(name);
  }

  toJSON() {
    const out = {};
    if (this.allow !== null) out.allow = [...this.allow];
    if (this.deny !== null) out.deny = [...this.deny];
    return out;
  }
}

const FILTER = Object.freeze({
  code: Code.INVALID_TOOL_FILTER, what: 'a tool filter', items: 'global tool names',
  item: 'tool names', example: '{"deny": ["write"]}', rule: 'TF-07',
  emptyAllow: 'allow: [] hides every global tool', drop: 'the filter',
  unknown: (offending) => `the tool filter names tools that are not registered global tools: `
    + `${offending.join(', ')} (TF-08); fix the spelling, or register the tool globally `
    + 'first (scope-local tools and run_code cannot be filtered)',
});
const POLICY = Object.freeze({
  code: Code.INVALID_SPAWN_POLICY, what: 'a spawn policy', items: 'preset names',
  item: 'preset names', example: '{"deny": ["writer"]}', rule: 'SP-01',
  emptyAllow: 'allow: [] starts no preset', drop: 'the policy',
  unknown: (offending) => `the spawn policy names presets the deployment does not define: `
    + `${offending.join(', ')} (SP-01); fix the spelling (preset names are case-sensitive), `
    + 'or define the preset first',
});

function names(value, key, words) {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    throw new TckError(words.code, `${key} must be a list of ${words.items}, not ${typeof value}`,
      { field: key });
  }
  const bad = value.find((item) => typeof item !== 'string');
  if (bad !== undefined) {
    throw new TckError(words.code, `${key} must hold only ${words.item} (strings), not `
      + JSON.stringify(bad), { field: key });
  }
  return [...value];
}

function parse(value, known, words) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TckError(words.code, `${words.what} must be an object with an allow and/or a deny `
      + `list, e.g. ${words.example}`);
  }
  const extra = Object.keys(value).filter((k) => k !== 'allow' && k !== 'deny');
  if (extra.length) {
    throw new TckError(words.code, `${words.what} takes only allow and deny, not `
      + extra.join(', '), { unknownKeys: extra });
  }
  const allow = names(value.allow, 'allow', words);
  const deny = names(value.deny, 'deny', words);
  if (allow === null && deny === null) {
    throw new TckError(words.code, `${words.what} with neither allow nor deny changes nothing `
      + `(${words.rule}): give allow: [...] or deny: [...] (${words.emptyAllow}), or drop `
      + words.drop, { reason: 'no-op' });
  }
  const knownSet = new Set(known);
  const offending = [];
  for (const name of [...(allow ?? []), ...(deny ?? [])]) {
    if (!knownSet.has(name) && !offending.includes(name)) offending.push(name);
  }
  if (offending.length) throw new TckError(words.code, words.unknown(offending), { offending });
  return new Restriction(allow, deny);
}

/** A Restriction from a raw value, or INVALID_TOOL_FILTER; `globals`: the names registered now. */
export function parseRestriction(value, globals) {
  return parse(value, globals, FILTER);
}

/** A spawn policy from a raw value, or INVALID_SPAWN_POLICY; `presets`: the preset names. */
export function parseSpawnPolicy(value, presets) {
  return parse(value, presets, POLICY);
}
