// A roster plugin for DSH, written from the seed's design (one `delegate` tool, the role as its
// enum; each role a start request with a persona, a tool allow list, a model tier and
// maxDepth 1). Loaded by the adapter like any DSH plugin module:
//
//   subagent-tck promises --target 'cmd:node adapters/dsh/server.mjs --provider-module
//       adapters/dsh/examples/roster/index.mjs' examples/roster/promises.toml
//
// The roster data and its load-time validation are shared with the reference and JavaScript
// rosters (examples/roster/roster.json, examples/roster/js/roster_data.mjs). The mode is
// `strict` (refuse to load a bad roster) unless SUBAGENT_TCK_ROSTER_MODE=advisory; a broken
// variant is chosen with SUBAGENT_TCK_ROSTER_VARIANT (see variants.mjs). docs/promises.md.

import { delegateShape, loadRoster, requestFor, roleOf, validate } from
  '../../../../examples/roster/js/roster_data.mjs';
import { variant } from './variants.mjs';

export { TOOL_NAME } from '../../../../examples/roster/js/roster_data.mjs';
export const name = 'dsh-roster';
export const inject = ['tools', 'subagents'];

function textOf(output) {
  return (output ?? []).filter((b) => b?.type === 'text').map((b) => b.text).join('');
}

/** The DSH provider children run on: the in-process spawn provider, whatever its name. */
function spawnProvider(ctx) {
  const names = ctx.subagents.list();
  return names.find((n) => /spawn/.test(n)) ?? names[0];
}

export function apply(ctx) {
  const chosen = variant(process.env.SUBAGENT_TCK_ROSTER_VARIANT);
  const roster = chosen.roster ?? loadRoster();
  validate(roster, chosen.mode ?? process.env.SUBAGENT_TCK_ROSTER_MODE ?? 'strict');
  const request = chosen.request ?? requestFor;
  ctx.tools.register({
    ...delegateShape(roster),
    output: { schema: {}, render: (_args, value) => [{ type: 'text', text: JSON.stringify(value) }] },
    async execute(args, exec) {
      const { role, problem } = roleOf(roster, args);
      if (problem !== undefined) throw new Error(problem);
      const { provider: _kit, prompt, ...controls } = request(roster, role, args.task);
      const run = await ctx.subagents.start(spawnProvider(ctx), {
        label: role.id,
        parent: exec.agent,
        prompt: [{ type: 'text', text: prompt }],
        signal: exec.signal,
        agentOptions: { model: roster.tiers[role.tier]?.model },
        ...controls,
      });
      try {
        const result = await run.result;
        if (result.stopReason !== 'completed') throw new Error(`the ${role.id} child stopped with ${result.stopReason}`);
        return { role: role.id, tier: role.tier, output: textOf(result.output) };
      } finally {
        await run.dispose();
      }
    },
  });
}
