// The kit's deployment presets as DSH agent presets (docs/dsh.md, "The preset-composition
// edition"). Each PresetSpec of the deployment config becomes one preset directory of DSH's roster
// (dsh-agent-presets: `<root>/<id>/agent.cordis.yml`) whose single plugin row is
// src/preset_row.mjs with the preset's persona and tool filter; DSH's AgentPresets service
// (over cordis-plugin-loader) discovers, mounts and joins them. The adapter never composes a
// child itself: DSH does, in the child's creation window (dsh-subagent applyChildComposition ->
// agentPresets.composeFrom(child, parent)).
//
// DSH has no per-start preset: a child joins the composition its PARENT runs, and every agent
// of a deployment with a roster runs one (AgentPresets.defaultId when it names none). So the
// adapter's top-level agents join the deployment's own preset (BASE: one row with no persona and
// no filter, i.e. the host composition alone, as a rosterless deployment), and the kit's start
// naming preset P is translated through DSH's own preset switch: for the child's creation window
// the parent is re-linked to P (AgentPresets.recompose), the start's child joins it, and the
// parent is re-linked back as soon as DSH returns the run (the child exists by then). A kit preset's
// outputSchema has no place in a DSH preset (a preset is a plugin composition): it travels in
// the start's outputSchema field, the one DSH field for it, gated by DSH's capability check.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import Loader from '@deepseek-ai/cordis-plugin-loader';
import AgentPresets from '@deepseek-ai/dsh-agent-presets';

import { Code, TckError } from './errors.mjs';

const ROW = fileURLToPath(new URL('./preset_row.mjs', import.meta.url));

/** DSH preset ids are `[a-z0-9][a-z0-9-]*` directory names; the kit's names are free text. */
const dshId = (index) => `tck-preset-${index + 1}`;

/** The deployment's own preset: the host composition alone (one row with neither control). */
export const BASE = 'tck-deployment';

function writePreset(dir, id, displayName, config) {
  mkdirSync(join(dir, id), { recursive: true });
  // a composition is a YAML list of rows; JSON is YAML, and keeps the text byte for byte
  writeFileSync(join(dir, id, 'agent.cordis.yml'), `${JSON.stringify([{ name: ROW, config }])}\n`);
  writeFileSync(join(dir, id, 'preset.yml'), `${JSON.stringify({ name: displayName })}\n`);
}

/** Write the roster and load DSH's loader and AgentPresets into `ctx`; name -> DSH id. */
export async function loadPresets(ctx, presets, dir) {
  const ids = new Map();
  writePreset(dir, BASE, 'the deployment', {});
  presets.forEach((preset, index) => {
    if (ids.has(preset.name)) return; // the first definition of a name wins, as DSH's roots do
    const id = dshId(index);
    ids.set(preset.name, id);
    writePreset(dir, id, preset.name, {
      ...(preset.persona === null ? {} : { persona: preset.persona }),
      ...(preset.toolFilter === null ? {} : { toolFilter: preset.toolFilter }) });
  });
  await ctx.plugin(Loader, { baseUrl: import.meta.url });
  ctx.plugin(AgentPresets, { default: BASE, roots: [{ path: dir,
    trust: 'system' }], includeUserRoot: false });
  return ids;
}

/**
 * Run `create` (the DSH start) with `parent` re-linked to the kit preset `name` (DSH's
 * recompose), and re-link it back once the child exists. Returns what `create` returns.
 */
export async function withPreset(host, parent, name, create) {
  const id = host.presetIds?.get(name);
  if (id === undefined) {
    throw new TckError(Code.UNKNOWN_PRESET, `the deployment has no preset ${JSON.stringify(name)}`
      + ` (it has ${JSON.stringify([...(host.presetIds?.keys() ?? [])])})`, { preset: name });
  }
  const presets = host.ctx.agentPresets;
  const before = presets.composedPreset(parent.ctx) ?? BASE;
  try {
    await presets.recompose(parent.ctx, id);
  } catch (error) {
    throw new TckError(Code.SETUP_FAILED, `DSH refused preset ${JSON.stringify(name)}: `
      + `${error?.message ?? String(error)}`, { preset: name, dsh: error?.name ?? 'Error' });
  }
  try {
    return await create();
  } finally {
    await presets.recompose(parent.ctx, before);
  }
}

/** The outputSchema of the kit preset `name`, if it has one (travels in the start request). */
export function presetOutputSchema(host, name) {
  const spec = host.config.presets.find((preset) => preset.name === name);
  return spec?.outputSchema ?? undefined;
}
