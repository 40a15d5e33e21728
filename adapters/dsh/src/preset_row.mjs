// The one plugin row of each DSH agent preset the adapter writes from the kit's deployment
// config (src/presets.mjs): loaded by DSH's preset roster (dsh-agent-presets, mountPreset) under
// the preset's standing scope, it files the preset's persona and tool filter into that scope's
// layer, exactly as a preset author's own plugin row would (docs/dsh.md, "The
// preset-composition edition").
// Agents joined to the preset (AgentPresets.mount / composeFrom) resolve agent -> preset ->
// global, so the persona section shadows the deployment persona and the restriction intersects
// with every restriction of the joined agent.

export const name = 'subagent-tck-preset';
export const inject = ['systemPrompt', 'tools'];

export function apply(ctx, config) {
  if (typeof config?.persona === 'string') {
    ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: config.persona });
  }
  if (config?.toolFilter !== undefined && config.toolFilter !== null) {
    ctx.tools.restrict(config.toolFilter);
  }
}
