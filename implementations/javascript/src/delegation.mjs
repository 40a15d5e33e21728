// Starting a child and cold-resuming a session (CA-01..CA-05, DE-01..DE-10, EN-01..EN-03,
// FR-01..FR-05, PE-01..PE-05).
//
// A start goes through these steps, each refusing before anything exists:
//   1. the parent (UNKNOWN_AGENT) and the provider (NO_PROVIDER, CA-05);
//   2. the preset, when one is named (UNKNOWN_PRESET);
//   3. the edition's entry points: in preset-composition a request carrying persona or
//      toolFilter is refused (REQUEST_CONTROLS_REFUSED, EN-02);
//   4. the composition asked for: the request's own values over the preset's (a null control
//      counts as absent, except maxDepth whose null is a value outside the domain);
//   5. capability gating, before any value is looked at (UNSUPPORTED_CAPABILITY naming the
//      capability, CA-01..CA-03); then the parent's spawn policies must admit the preset
//      (SPAWN_DENIED, SP-01; a start that names no preset is outside every policy);
//   6. depth: the cap's domain, the parent's stored header read from the store, its runtime
//      depth, the derived child depth, overflow and the cap (DE-02..DE-08, DE-10);
//   7. unpublished setup: the persona section (strict template), the restriction validated
//      against the live registry, structured_output for an output schema, the child's own
//      spawn policy over the preset names, its model (composed, else its parent's: MO-01)
//      (FR-03: a failure drops the private child; nothing was published);
//   8. publication: the session header with the child depth and the descriptor is stored and
//      the agent becomes observable with an agent.published event whose snapshot is its final
//      view and prompt (FR-02); then the run.
// Resume reads the stored header and descriptor, validates the depth (DE-06) and applies the
// historical composition while the agent is unpublished (FR-04); a descriptor that can no
// longer be applied is NOT_RESUMABLE.

import { Agent, requireModel } from './agent.mjs';
import { deriveChildDepth, requireDepth } from './depth.mjs';
import { Code, TckError } from './errors.mjs';
import { Kind } from './events.mjs';
import { runTurn } from './loop.mjs';
import { PERSONA_SECTION } from './prompt.mjs';
import { FIELD_CAPABILITY, hasCapability } from './providers.mjs';
import { render } from './template.mjs';
import { echoTool, Origin, STRUCTURED_OUTPUT, toolError, toolResult } from './tool.mjs';

const has = (object, key) => object !== null && object !== undefined && Object.hasOwn(object, key);

/** Steps 1-8 of a start; returns the published child (not yet run). */
export function startChild(host, request) {
  const parent = host.agent(request.parent);
  const provider = host.providers.require(request.provider);
  let preset = null;
  if (has(request, 'preset')) {
    preset = typeof request.preset === 'string' ? host.presets.get(request.preset) ?? null : null;
    if (preset === null) {
      throw new TckError(Code.UNKNOWN_PRESET, `there is no preset named `
        + `${JSON.stringify(request.preset)}: use one of ${[...host.presets.keys()].join(', ')
          || '(the deployment has no presets)'}`, { preset: request.preset ?? null });
    }
  }
  if (host.edition === 'preset-composition') {
    const carried = ['persona', 'toolFilter'].filter((key) => has(request, key));
    if (carried.length) {
      throw new TckError(Code.REQUEST_CONTROLS_REFUSED, `a new start request may not carry `
        + `${carried.join(' or ')} in the preset-composition edition (EN-02): compose the child `
        + 'with a preset', { fields: carried });
    }
  }
  const asked = composition(request, preset);
  gate(provider, asked, (key) => (has(request, key) && request[key] !== null ? 'the request'
    : `preset ${preset?.name}`));
  if (preset !== null && !parent.scope.spawnPolicies().every((p) => p.admits(preset.name))) {
    throw new TckError(Code.SPAWN_DENIED, `the spawn policies of agent ${parent.id} do not `
      + `admit the preset ${preset.name} (SP-01): start a preset they admit, or dispose of the `
      + 'policy', { preset: preset.name, agent: parent.id });
  }
  const header = host.store.header(parent.session).delegationDepth;
  const depth = deriveChildDepth({ header, runtime: parent.runtimeDepth, cap: asked.maxDepth });
  const scope = setUp(host, asked, preset?.tools ?? []);
  const child = new Agent({
    id: host.nextId('agent'),
    session: host.nextId('session'),
    scope,
    loadedDepth: depth,
    runtimeDepth: undefined,
    provider: provider.name,
    parent: parent.id,
    history: provider.inheritsParentContext ? parent.completedMessages() : [],
    model: asked.model ?? parent.model,
  });
  const descriptor = { provider: provider.name };
  if (preset !== null) descriptor.preset = preset.name;
  for (const key of ['persona', 'toolFilter', 'outputSchema', 'maxDepth', 'spawnPolicy',
    'model']) {
    if (asked[key] !== undefined) descriptor[key] = asked[key];
  }
  host.store.putHeader({ session: child.session, parent: parent.session, delegationDepth: depth,
    descriptor });
  host.publish(child, { provider: provider.name, parent: parent.id, depth });
  return child;
}

/** A child a tool call started, run on `prompt` to its end and then unpublished (disposed by
 * the tool `by`): its outcome. */
export async function runForTool(host, child, prompt, { signal, by }) {
  try {
    return await runChild(host, child, prompt, { signal });
  } finally {
    host.unpublish(child, Kind.AGENT_DISPOSED, { by });
  }
}

/** Run a published child with its prompt; the run's lifecycle events around it. */
export async function runChild(host, child, prompt, { signal } = {}) {
  host.events.emit(Kind.RUN_STARTED, { agent: child.id, session: child.session,
    data: { provider: child.provider } });
  let outcome;
  try {
    outcome = await runTurn(host, child, prompt, { signal });
  } catch (error) {
    outcome = { stopReason: 'error', output: `the run failed: ${error.message}`, toolResults: [] };
  }
  host.events.emit(Kind.RUN_STOPPED, { agent: child.id, session: child.session,
    data: { stopReason: outcome.stopReason } });
  return outcome;
}

/** The controls asked for: the request's values over the preset's; undefined: not asked. */
function composition(request, preset) {
  const pick = (key) => {
    if (has(request, key) && request[key] !== null) return request[key];
    const fromPreset = preset?.[key];
    return fromPreset === null || fromPreset === undefined ? undefined : fromPreset;
  };
  return {
    maxDepth: has(request, 'maxDepth') ? request.maxDepth : undefined,
    persona: pick('persona'),
    toolFilter: pick('toolFilter'),
    outputSchema: pick('outputSchema'),
    spawnPolicy: pick('spawnPolicy'),
    model: pick('model'),
  };
}

/** CA-01..CA-03: every control asked for must be advertised, before any value is checked. */
function gate(provider, asked, sourceOf) {
  for (const [key, capability] of Object.entries(FIELD_CAPABILITY)) {
    if (asked[key] === undefined || hasCapability(provider, capability)) continue;
    const from = sourceOf(key);
    throw new TckError(Code.UNSUPPORTED_CAPABILITY, `provider ${provider.name} does not `
      + `advertise ${capability}, so it cannot honour ${key} (asked by ${from}); use a provider `
      + `that advertises ${capability}, or leave ${key} out`,
    { capability, provider: provider.name, field: key });
  }
}

/** Step 7: a private scope carrying the composition (nothing observable yet); `ownTools`: the
 * preset's own tools, the child's scope-local tools, added after its filter (TF-04). */
function setUp(host, asked, ownTools = []) {
  const scope = host.newScope();
  if (asked.persona !== undefined) {
    if (typeof asked.persona !== 'string') {
      throw new TckError(Code.INVALID_REQUEST, 'persona must be a string (an empty string '
        + 'shadows the deployment persona with an empty section)');
    }
    scope.setSection(PERSONA_SECTION, render(asked.persona, host.variables, 'the child persona'));
  }
  if (asked.toolFilter !== undefined) scope.restrict(asked.toolFilter, host.registry.names());
  for (const spec of ownTools) scope.addLocal(echoTool(spec, Origin.LOCAL));
  if (asked.outputSchema !== undefined) {
    scope.addLocal(structuredOutputTool(checkOutputSchema(asked.outputSchema)));
  }
  if (asked.spawnPolicy !== undefined) scope.restrictSpawn(asked.spawnPolicy, host.presets.keys());
  if (asked.model !== undefined) requireModel(asked.model, 'model');
  return scope;
}

export function checkOutputSchema(schema) {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)
      || schema.type !== 'object') {
    throw new TckError(Code.INVALID_OUTPUT_SCHEMA, 'an output schema must be a JSON Schema '
      + 'object with "type": "object", e.g. {"type": "object", "properties": {...}}');
  }
  const { properties, required } = schema;
  if (properties !== undefined && (properties === null || typeof properties !== 'object'
      || Array.isArray(properties))) {
    throw new TckError(Code.INVALID_OUTPUT_SCHEMA, 'an output schema\'s properties must be an '
      + 'object of property schemas');
  }
  if (required !== undefined && !(Array.isArray(required)
      && required.every((name) => typeof name === 'string'))) {
    throw new TckError(Code.INVALID_OUTPUT_SCHEMA, 'an output schema\'s required must be a '
      + 'list of property names');
  }
  return structuredClone(schema);
}

/** The scope-local tool through which a child returns output of its schema (FR-01). */
function structuredOutputTool(schema) {
  return {
    name: STRUCTURED_OUTPUT,
    description: 'Return your final answer as structured output matching the parameters.',
    parameters: schema,
    origin: Origin.LOCAL,
    body(args, context) {
      const missing = (schema.required ?? []).filter((name) => !Object.hasOwn(args, name));
      if (missing.length) {
        return toolError(Code.INVALID_REQUEST, `structured output is missing ${missing.join(', ')}`);
      }
      const agent = context.host?.agents.get(context.agent);
      if (agent) agent.structured = structuredClone(args);
      return toolResult('structured output recorded');
    },
  };
}

/** Cold resume of a stored session (DE-06, DE-09, FR-04); returns the published agent. */
export function resume(host, session) {
  if (typeof session !== 'string') {
    throw new TckError(Code.INVALID_REQUEST, 'session must be a session id (a string)');
  }
  const header = host.store.header(session);
  const depth = requireDepth(header.delegationDepth, 'stored delegationDepth');
  const { descriptor } = header;
  let scope = host.newScope();
  let provider = null;
  if (descriptor !== null) {
    if (typeof descriptor !== 'object' || Array.isArray(descriptor)) {
      throw notResumable(session, 'its descriptor is not an object');
    }
    provider = host.providers.get(descriptor.provider);
    if (provider === null) {
      throw notResumable(session, `its provider ${JSON.stringify(descriptor.provider)} is not `
        + 'registered', { provider: descriptor.provider ?? null });
    }
    const asked = {
      persona: descriptor.persona ?? undefined,
      toolFilter: descriptor.toolFilter ?? undefined,
      outputSchema: descriptor.outputSchema ?? undefined,
      spawnPolicy: descriptor.spawnPolicy ?? undefined,
      model: descriptor.model ?? undefined,
    };
    gate(provider, asked, () => 'the descriptor');
    try {
      scope = setUp(host, asked);
    } catch (error) {
      if (!(error instanceof TckError)) throw error;
      throw notResumable(session, `its historical composition can no longer be applied: `
        + error.reason, { cause: error.code, ...error.details });
    }
  }
  const agent = new Agent({
    id: host.nextId('agent'),
    session,
    scope,
    loadedDepth: depth,
    runtimeDepth: undefined,
    provider: provider?.name ?? null,
    history: host.store.transcript(session),
    model: host.sessionModel(session), // its descriptor's, else its parent's (MO-02)
  });
  const live = host.liveAgentOf(session);
  if (live !== null) host.unpublish(live, Kind.AGENT_RETIRED, { replacedBy: agent.id });
  host.publish(agent, { resumed: true, depth, provider: agent.provider });
  return agent;
}

function notResumable(session, why, details = {}) {
  return new TckError(Code.NOT_RESUMABLE, `session ${session} cannot be resumed: ${why}`,
    { session, ...details });
}
