// The depth domain and derivation (docs/rules.md DE-01..DE-10 and the DE "Decision (domain)").
//
// A depth is an integer-valued, finite JavaScript number 0 <= v <= 2^53-1 that is not -0.
// Everything else (negative, fraction, -0, NaN, infinities, 2^53 and above, booleans, strings,
// null, arrays, objects) is refused with INVALID_DEPTH at every entry that takes a depth.

import { Code, TckError } from './errors.mjs';

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Why `value` is outside the domain, or null when it is a depth. */
export function depthProblem(value) {
  if (typeof value !== 'number') return 'it is not a number: give a JSON number such as 0, 1 or 3';
  if (!Number.isFinite(value)) return 'it is not finite: give a finite whole number';
  if (Object.is(value, -0)) return 'it is negative zero: give 0, not -0';
  if (value < 0) return 'it is negative: give a number of 0 or more';
  if (!Number.isInteger(value)) return 'it is a fraction: give a whole number';
  if (value > MAX_SAFE) return `it is not a safe integer: give at most ${MAX_SAFE} (2^53-1)`;
  return null;
}

export const isDepth = (value) => depthProblem(value) === null;

export function describe(value) {
  if (typeof value === 'number') {
    if (Object.is(value, -0)) return '-0';
    return String(value);
  }
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** The value itself when it is a depth; INVALID_DEPTH naming `what` otherwise. */
export function requireDepth(value, what) {
  const problem = depthProblem(value);
  if (problem !== null) {
    throw new TckError(Code.INVALID_DEPTH, `${what} ${describe(value)} is not a valid depth: `
      + problem, { field: what });
  }
  return value;
}

/**
 * The depth of a child of a parent whose durable header depth is `header` and whose runtime
 * depth is `runtime` (undefined: none), under the cap `cap` (undefined: unbounded, DE-10).
 * DE-05 (cap domain), DE-06 (stored domain), DE-07 (runtime domain), DE-02 (effective parent),
 * DE-08 (derived overflow), DE-03 (cap).
 */
export function deriveChildDepth({ header, runtime, cap }) {
  if (cap !== undefined) requireDepth(cap, 'maxDepth');
  const parent = effectiveDepth(header, runtime);
  if (parent + 1 > MAX_SAFE) {
    throw new TckError(Code.INVALID_DEPTH, `the parent is at depth ${parent}: a child would be `
      + `at ${parent + 1}, beyond 2^53-1 (DE-08); no child can be started from it`,
    { parentDepth: parent });
  }
  const child = parent + 1;
  if (cap !== undefined && child > cap) {
    throw new TckError(Code.DEPTH_EXCEEDED, `the child would be at depth ${child}, greater `
      + `than maxDepth ${cap}: work directly instead of delegating, or raise the cap`,
    { childDepth: child, maxDepth: cap });
  }
  return child;
}

/** DE-02: the larger of the durable header depth and the runtime depth, both validated. */
export function effectiveDepth(header, runtime) {
  requireDepth(header, 'stored delegationDepth');
  if (runtime === undefined) return header;
  requireDepth(runtime, 'runtime subagentDepth');
  return Math.max(header, runtime);
}
