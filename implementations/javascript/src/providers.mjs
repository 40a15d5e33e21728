// Providers: the backends that run a child, and the capabilities they advertise (CA-01..CA-05).
//
// This runtime hosts three. spawn and fork share the in-process implementation and advertise
// every control; fork's child is seeded with the parent's completed turns
// (inheritsParentContext). acp stands for an out-of-process agent: it advertises no control,
// so a start asking it for one is refused before it is called (never a silent downgrade).
// The registry is live: a provider can be removed and added again (the subagent tool mirrors
// it, ST-02).

import { Code, TckError } from './errors.mjs';

export const Capability = Object.freeze({
  DEPTH_LIMIT: 'depthLimit',
  PERSONA: 'persona',
  TOOL_FILTER: 'toolFilter',
  OUTPUT_SCHEMA: 'outputSchema',
  SPAWN_POLICY: 'spawnPolicy',
  MODEL_SELECTION: 'modelSelection',
});

/** Which start field asks for which capability. */
export const FIELD_CAPABILITY = Object.freeze({
  maxDepth: Capability.DEPTH_LIMIT,
  persona: Capability.PERSONA,
  toolFilter: Capability.TOOL_FILTER,
  outputSchema: Capability.OUTPUT_SCHEMA,
  spawnPolicy: Capability.SPAWN_POLICY,
  model: Capability.MODEL_SELECTION,
});

const ALL = Object.freeze(Object.values(Capability));

export const CATALOGUE = Object.freeze([
  Object.freeze({ name: 'spawn', capabilities: ALL, inheritsParentContext: false }),
  Object.freeze({ name: 'fork', capabilities: ALL, inheritsParentContext: true }),
  Object.freeze({ name: 'acp', capabilities: Object.freeze([]), inheritsParentContext: false }),
]);

export const info = (provider) => ({
  name: provider.name,
  capabilities: [...provider.capabilities],
  inheritsParentContext: provider.inheritsParentContext,
});

export class ProviderRegistry {
  #providers = new Map();
  #listeners = [];

  constructor(providers = CATALOGUE) {
    for (const provider of providers) this.#providers.set(provider.name, provider);
  }

  /** `listener.added(provider)` / `listener.removed(provider)` after each change. */
  listen(listener) {
    this.#listeners.push(listener);
  }

  get(name) {
    return typeof name === 'string' ? this.#providers.get(name) ?? null : null;
  }

  /** The registered provider named `name`, or NO_PROVIDER (CA-05). */
  require(name) {
    const provider = this.get(name);
    if (provider === null) {
      throw new TckError(Code.NO_PROVIDER, `no provider named ${JSON.stringify(name)} is `
        + `registered: use one of ${this.names().join(', ') || '(none registered now)'}`,
      { provider: typeof name === 'string' ? name : null });
    }
    return provider;
  }

  names() {
    return [...this.#providers.keys()];
  }

  list() {
    return [...this.#providers.values()];
  }

  remove(name) {
    const provider = this.require(name);
    this.#providers.delete(name);
    for (const listener of this.#listeners) listener.removed?.(provider);
  }

  /** Register again one of this runtime's own providers; adding a present one changes nothing. */
  add(name) {
    const provider = CATALOGUE.find((p) => p.name === name);
    if (provider === undefined) {
      throw new TckError(Code.NO_PROVIDER, `this runtime has no provider named `
        + `${JSON.stringify(name)}: its providers are ${CATALOGUE.map((p) => p.name).join(', ')}`,
      { provider: name });
    }
    if (this.#providers.has(name)) return false;
    this.#providers.set(name, provider);
    for (const listener of this.#listeners) listener.added?.(provider);
    return true;
  }
}

export function hasCapability(provider, capability) {
  return provider.capabilities.includes(capability);
}
