// Tool restrictions {allow?, deny?} over the names of global tools (TF-01, TF-02, TF-07, TF-08,
// TF-09..TF-11, TF-14, TF-15).
//
// A restriction is validated when it is installed, against the global restrictable set as it
// is at that moment (the names of the global tools registered now): neither list given (or
// both null) is TF-07's no-op, a name outside the set (a misspelling, a scope-local-only name,
// the reserved run_code) is TF-08's unknown name, and every such name is listed. The values are
// copied. Once installed, a restriction is a live predicate: allow before deny, evaluated
// against whatever the registry holds when a view is resolved.

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

function invalid(message, details = {}) {
  return new TckError(Code.INVALID_TOOL_FILTER, message, details);
}

function names(value, key) {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    throw invalid(`${key} must be a list of global tool names, not ${typeof value}`,
      { field: key });
  }
  const bad = value.find((item) => typeof item !== 'string');
  if (bad !== undefined) {
    throw invalid(`${key} must hold only tool names (strings), not ${JSON.stringify(bad)}`,
      { field: key });
  }
  return [...value];
}

/** A Restriction from a raw value, or INVALID_TOOL_FILTER; `globals`: the names registered now. */
export function parseRestriction(value, globals) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('a tool filter must be an object with an allow and/or a deny list, e.g. '
      + '{"deny": ["write"]}');
  }
  const extra = Object.keys(value).filter((k) => k !== 'allow' && k !== 'deny');
  if (extra.length) {
    throw invalid(`a tool filter takes only allow and deny, not ${extra.join(', ')}`,
      { unknownKeys: extra });
  }
  const allow = names(value.allow, 'allow');
  const deny = names(value.deny, 'deny');
  if (allow === null && deny === null) {
    throw invalid('a tool filter with neither allow nor deny changes nothing (TF-07): give '
      + 'allow: [...] or deny: [...] (allow: [] hides every global tool), or drop the filter',
    { reason: 'no-op' });
  }
  const known = new Set(globals);
  const offending = [];
  for (const name of [...(allow ?? []), ...(deny ?? [])]) {
    if (!known.has(name) && !offending.includes(name)) offending.push(name);
  }
  if (offending.length) {
    throw invalid(`the tool filter names tools that are not registered global tools: `
      + `${offending.join(', ')} (TF-08); fix the spelling, or register the tool globally `
      + 'first (scope-local tools and run_code cannot be filtered)', { offending });
  }
  return new Restriction(allow, deny);
}
