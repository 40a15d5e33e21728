// The shapes of the driver API's messages (conformance/core/protocol.py, docs/driver-api.md), as
// small validators: a value of the wrong shape is malformed input, INVALID_REQUEST (HTTP 400),
// refused before the runtime sees it. Fields the protocol types as raw values (a depth, a tool
// filter, a persona) are passed through unvalidated: judging them is the runtime's job. A raw
// field left out stays absent, which differs from null.

import { Code, TckError } from './errors.mjs';

const malformed = (path, message) => new TckError(Code.INVALID_REQUEST, `${path}: ${message}`,
  { field: path });

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

export const T = {
  any: () => (value) => value,
  str: () => (value, path) => {
    if (typeof value !== 'string') throw malformed(path, 'must be a string');
    return value;
  },
  strOrNull: () => (value, path) => {
    if (value !== null && typeof value !== 'string') throw malformed(path, 'must be a string or null');
    return value;
  },
  bool: () => (value, path) => {
    if (typeof value !== 'boolean') throw malformed(path, 'must be true or false');
    return value;
  },
  oneOf: (...choices) => (value, path) => {
    if (!choices.includes(value)) throw malformed(path, `must be one of ${choices.join(', ')}`);
    return value;
  },
  dict: () => (value, path) => {
    if (!isObject(value)) throw malformed(path, 'must be a JSON object');
    return value;
  },
  dictOrNull: () => (value, path) => {
    if (value !== null && !isObject(value)) throw malformed(path, 'must be a JSON object or null');
    return value;
  },
  strings: () => (value, path) => {
    if (!isObject(value)) throw malformed(path, 'must be an object of strings');
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== 'string') throw malformed(`${path}.${key}`, 'must be a string');
    }
    return value;
  },
  list: (item) => (value, path) => {
    if (!Array.isArray(value)) throw malformed(path, 'must be a list');
    return value.map((element, index) => item(element, `${path}[${index}]`));
  },
  /** An object with exactly these fields: {key: [validator, {default} | {absent: true} | {}]}. */
  model: (fields) => (value, path) => {
    if (!isObject(value)) throw malformed(path, 'must be a JSON object');
    const unknown = Object.keys(value).filter((key) => !Object.hasOwn(fields, key));
    if (unknown.length) {
      throw malformed(path, `has no field(s) ${unknown.join(', ')}; its fields are `
        + Object.keys(fields).join(', '));
    }
    const out = {};
    for (const [key, [validate, options = {}]] of Object.entries(fields)) {
      if (Object.hasOwn(value, key)) {
        out[key] = validate(value[key], `${path}.${key}`);
      } else if (Object.hasOwn(options, 'default')) {
        out[key] = structuredClone(options.default);
      } else if (!options.absent) {
        throw malformed(path, `needs the field ${key}`);
      }
    }
    return out;
  },
};

/**
 * Raw fields (passed through unvalidated: judging them is the runtime's job), each with the same
 * options: `{absent: true}` (left out, it stays absent) unless given.
 */
const raw = (names, options = { absent: true }) => Object.fromEntries(
  names.map((name) => [name, [T.any(), options]]));

export const MODE = T.oneOf('native', 'ptc', 'both');
export const EDITION = T.oneOf('preset-composition', 'request-controls');

export const ToolSpec = T.model({
  name: [T.str()],
  description: [T.str(), { default: '' }],
  parameters: [T.dict(), { default: { type: 'object' } }],
  // the server a tool is served by (protocol 1.3): this implementation has no servers, and
  // declares no grammar that names one, so it keeps the tool as any other
  server: [T.any(), { absent: true }],
});

export const SdkCall = T.model({
  name: [T.str()],
  arguments: [T.dict(), { default: {} }],
});

export const SectionSpec = T.model({
  name: [T.str()],
  text: [T.str()],
  guides: [T.strOrNull(), { default: null }],
});

export const PresetSpec = T.model({
  name: [T.str()],
  ...raw(['persona', 'toolFilter', 'outputSchema', 'spawnPolicy', 'model'], { default: null }),
  // the preset's own tools: each child composed from it has them as scope-local tools
  // (docs/driver-api.md#preset-tools)
  tools: [T.list(ToolSpec), { default: [] }],
});

export const SubagentToolConfig = T.model({
  provider: [T.str()],
  toolName: [T.str(), { default: 'subagent' }],
  ...raw(['maxDepth', 'persona', 'toolFilter', 'agentOptions', 'preset']),
});

export const DeploymentConfig = T.model({
  edition: [EDITION, { default: 'preset-composition' }],
  persona: [T.strOrNull(), { default: null }],
  variables: [T.strings(), { default: {} }],
  sections: [T.list(SectionSpec), { default: [] }],
  tools: [T.list(ToolSpec), { default: [] }],
  presets: [T.list(PresetSpec), { default: [] }],
  mode: [MODE, { default: 'native' }],
  hostDepth: [T.any(), { default: 1 }],
  runtimeContext: [T.bool(), { default: true }],
  // the root started from a preset: the `root` restriction channel (docs/driver-api.md#dialect)
  rootPreset: [T.any(), { absent: true }],
  // permission rules: a channel this implementation does not declare (refused if given)
  permissions: [T.any(), { absent: true }],
  model: [T.any(), { default: null }],
});

export const StartRequest = T.model({
  parent: [T.str()],
  provider: [T.any()],
  prompt: [T.str()],
  ...raw(['maxDepth', 'preset', 'persona', 'toolFilter', 'outputSchema', 'spawnPolicy', 'model']),
});

export const SessionHeader = T.model({
  session: [T.str()],
  parent: [T.strOrNull(), { default: null }],
  delegationDepth: [T.any(), { default: 0 }],
  descriptor: [T.dictOrNull(), { default: null }],
});
