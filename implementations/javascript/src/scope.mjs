// One agent's scope (TF-03..TF-05, TF-07, TF-08, TF-13..TF-15; PE-01).
//
// Registration is flat: a scope holds its own scope-local tools, its restrictions, its spawn
// policies and its prompt sections, and inherits nothing from a parent agent's scope. What one
// scope installs changes no other scope (TF-13): nothing here is shared. A spawn policy (SP-01)
// is kept like a restriction, over the deployment's preset names.

import { Code, TckError } from './errors.mjs';
import { parseRestriction, parseSpawnPolicy } from './restriction.mjs';
import { checkToolName } from './registry.mjs';

export const MODES = Object.freeze(['native', 'ptc', 'both']);

export class Scope {
  #locals = new Map();
  #restrictions = new Map(); // handle -> Restriction, installation order
  #disposed = new Set();
  #policies = new Map(); // handle -> Restriction over preset names, installation order
  #policiesDisposed = new Set();
  #sections = new Map(); // name -> {name, text}
  #handles;

  constructor({ mode, handles }) {
    this.mode = mode;
    this.#handles = handles; // () => a deployment-unique handle
  }

  addLocal(tool) {
    checkToolName(tool.name, 'scope-local');
    if (this.#locals.has(tool.name)) {
      throw new TckError(Code.DUPLICATE_TOOL, `this scope already has a local tool named `
        + `${tool.name}: unregister it first`, { name: tool.name });
    }
    this.#locals.set(tool.name, tool);
  }

  removeLocal(name) {
    if (!this.#locals.delete(name)) {
      throw new TckError(Code.UNKNOWN_TOOL, `this scope has no local tool named ${name}`,
        { name });
    }
  }

  locals() {
    return [...this.#locals.values()];
  }

  /** Validate against the global names registered now, copy, install; returns the handle. */
  restrict(value, globalNames) {
    return this.#install(this.#restrictions, parseRestriction(value, globalNames));
  }

  /** TF-14: lift exactly this restriction; a second dispose is harmless. */
  dispose(handle) {
    lift(this.#restrictions, this.#disposed, handle, 'a restriction', 'install_restriction');
  }

  restrictions() {
    return [...this.#restrictions.values()];
  }

  /** SP-01: validate against the deployment's preset names, copy, install; the handle. */
  restrictSpawn(value, presetNames) {
    return this.#install(this.#policies, parseSpawnPolicy(value, presetNames));
  }

  /** `parsed` kept in `installed` under a new handle; the handle. */
  #install(installed, parsed) {
    const handle = this.#handles();
    installed.set(handle, parsed);
    return handle;
  }

  /** Lift exactly this spawn policy; a second dispose is harmless. */
  disposeSpawn(handle) {
    lift(this.#policies, this.#policiesDisposed, handle, 'a spawn policy', 'install_spawn_policy');
  }

  spawnPolicies() {
    return [...this.#policies.values()];
  }

  /** A section of this scope shadows the inherited section of the same name (PE-01). */
  setSection(name, text) {
    this.#sections.set(name, { name, text });
  }

  sections() {
    return [...this.#sections.values()];
  }

  setMode(mode) {
    if (!MODES.includes(mode)) {
      throw new TckError(Code.INVALID_REQUEST, `mode ${JSON.stringify(mode)} is not one of `
        + MODES.join(', '));
    }
    this.mode = mode;
  }
}

/** Lift the entry of `handle` from `installed`; one lifted before (`disposed`) is harmless. */
function lift(installed, disposed, handle, what, operation) {
  if (installed.delete(handle)) {
    disposed.add(handle);
    return;
  }
  if (!disposed.has(handle)) {
    throw new TckError(Code.UNKNOWN_RESTRICTION, `this scope never had ${what} with the `
      + `handle ${JSON.stringify(handle)}: use the handle ${operation} returned`, { handle });
  }
}
