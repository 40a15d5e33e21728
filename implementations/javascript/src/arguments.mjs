// The arguments of one driver operation, read from a request body: each operation (OPERATIONS in
// deployment.mjs) names its arguments with a validator and an optional default. Shared with the
// DSH adapter (adapters/dsh), whose operations are its own but are read the same way.

import { Code, TckError } from './errors.mjs';

/** Validate a body against an operation's arguments; malformed input is INVALID_REQUEST. */
export function decodeArguments(segment, operation, body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new TckError(Code.INVALID_REQUEST, `the body of ${segment} must be a JSON object of `
      + 'its arguments');
  }
  const known = Object.keys(operation.args);
  const unknown = Object.keys(body).filter((key) => !known.includes(key)).sort();
  if (unknown.length) {
    throw new TckError(Code.INVALID_REQUEST, `${segment} takes no argument(s) `
      + `${unknown.join(', ')}; it takes ${known.join(', ') || 'none'}`, { unknown });
  }
  const out = {};
  for (const [name, [validate, options]] of Object.entries(operation.args)) {
    if (Object.hasOwn(body, name)) out[name] = validate(body[name], `${segment}: ${name}`);
    else if (Object.hasOwn(options, 'default')) out[name] = structuredClone(options.default);
    else throw new TckError(Code.INVALID_REQUEST, `${segment} needs the argument '${name}'`);
  }
  return out;
}
