// The model-facing subagent tool (ST-01..ST-09).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { withWorld } from './helpers.mjs';

const present = async (dep, agent, name) => ({
  global: (await dep.op('view', {})).some((e) => e.name === name),
  view: (await dep.op('view', { agent })).some((e) => e.name === name),
  wire: (await dep.op('tool-schemas', { agent })).some((s) => s.name === name),
  lookup: (await dep.op('lookup', { agent, name })) !== null,
});
const everywhere = { global: true, view: true, wire: true, lookup: true };
const nowhere = { global: false, view: false, wire: false, lookup: false };

/** A turn of `agent` calling `tool` once to start a child scripted with `child` replies. */
async function delegate(w, agent, { tool = 'subagent', child = [{ text: 'child ok' }], tag }) {
  const childMark = w.gateway.script(`<child-${tag}>`, ...child);
  w.gateway.script(`<caller-${agent}>`,
    { call: [tool, { description: 'task', prompt: `${childMark} do it` }, `call-${tag}`] },
    { text: 'caller done' });
  const result = await w.dep.op('run-turn', { agent, prompt: `<caller-${agent}>` });
  const message = w.gateway.requests.flatMap((r) => r.messages)
    .find((m) => m.role === 'tool' && m.tool_call_id === `call-${tag}`);
  return { result, message, children: w.gateway.agentsFor(childMark) };
}

describe('the subagent tool', () => {
  test('offers two parameters and words itself from inheritsParentContext',
    () => withWorld({}, async ({ dep, root }) => {
      await dep.op('load-subagent-tool', { config: { provider: 'spawn' } });
      await dep.op('load-subagent-tool', { config: { provider: 'fork', toolName: 'subagent_fork' } });
      const schemas = Object.fromEntries((await dep.op('tool-schemas', { agent: root }))
        .map((s) => [s.name, s]));
      for (const schema of Object.values(schemas)) {
        assert.deepEqual(Object.keys(schema.parameters.properties).sort(), ['description', 'prompt']);
      }
      assert.match(schemas.subagent.description, /does not see/);
      assert.match(schemas.subagent.parameters.properties.prompt.description, /stand alone/);
      assert.match(schemas.subagent_fork.description, /seeded/);
      assert.match(schemas.subagent_fork.parameters.properties.prompt.description, /only what is new/);
    }));

  test('mirrors its provider, in any load order, and names are loaded once',
    () => withWorld({}, async ({ dep, root }) => {
      await dep.op('remove-provider', { name: 'spawn' });
      await dep.op('load-subagent-tool', { config: { provider: 'spawn' } });
      assert.deepEqual(await present(dep, root, 'subagent'), nowhere);
      assert.equal(await dep.refused('load-subagent-tool', { config: { provider: 'fork' } }),
        'DUPLICATE_TOOL_NAME');
      await dep.op('add-provider', { name: 'spawn' });
      assert.deepEqual(await present(dep, root, 'subagent'), everywhere);
      await dep.op('remove-provider', { name: 'spawn' });
      assert.deepEqual(await present(dep, root, 'subagent'), nowhere);
      await dep.op('add-provider', { name: 'spawn' });
      await dep.op('unload-subagent-tool', { toolName: 'subagent' });
      assert.deepEqual(await present(dep, root, 'subagent'), nowhere);
    }));

  test('maxDepth is checked at load and a numeric cap needs depthLimit at mount',
    () => withWorld({}, async ({ dep, root }) => {
      for (const maxDepth of [-1, 1.5, -0, 2 ** 53, true, '1', 'unbounded', [1], { v: 1 }]) {
        assert.equal(await dep.refused('load-subagent-tool', { config: { provider: 'spawn', maxDepth } }),
          'INVALID_DEPTH', JSON.stringify(maxDepth));
      }
      assert.equal(await dep.refused('load-subagent-tool', { config: { provider: 'acp', maxDepth: 2 } }),
        'UNSUPPORTED_CAPABILITY');
      await dep.op('remove-provider', { name: 'acp' });
      await dep.op('load-subagent-tool', { config: { provider: 'acp', maxDepth: 2 } });
      await dep.op('add-provider', { name: 'acp' });
      assert.deepEqual(await present(dep, root, 'subagent'), nowhere);
      const failed = (await dep.op('events')).filter((e) => e.kind === 'subagent-tool.mount-failed');
      assert.equal(failed[0].data.code, 'UNSUPPORTED_CAPABILITY');
    }));

  test('at the cap the tool stays visible, a call is an errored result and nothing starts',
    () => withWorld({ hostDepth: 0 }, async (w) => {
      await w.dep.op('load-subagent-tool', { config: { provider: 'spawn' } });
      const sessions = (await w.dep.op('sessions')).length;
      const turn = await delegate(w, w.root, { tag: 'cap' });
      assert.equal(turn.message.is_error, true);
      assert.match(turn.message.content, /DEPTH_EXCEEDED/);
      assert.deepEqual(turn.children, []);
      assert.equal((await w.dep.op('sessions')).length, sessions);
      assert.ok(w.gateway.of(w.root).every((r) => r.tools.some((t) => t.name === 'subagent')));
    }));

  test('without maxDepth the live host setting caps each call',
    () => withWorld({}, async (w) => {
      await w.dep.op('load-subagent-tool', { config: { provider: 'spawn' } });
      const nested = async (tag) => {
        const grand = w.gateway.script(`<grand-${tag}>`, { text: 'grand ok' });
        const turn = await delegate(w, w.root, { tag, child: [
          { call: ['subagent', { description: 'g', prompt: `${grand} go` }, `g-${tag}`] },
          { text: 'child ok' }] });
        const result = w.gateway.of(turn.children[0]).flatMap((r) => r.messages)
          .find((m) => m.role === 'tool' && m.tool_call_id === `g-${tag}`);
        return { error: result.is_error === true, grand: w.gateway.agentsFor(grand).length };
      };
      assert.deepEqual(await nested('one'), { error: true, grand: 0 });
      await w.dep.op('set-host-depth', { value: 2 });
      assert.deepEqual(await nested('two'), { error: false, grand: 1 });
      assert.equal(await w.dep.refused('set-host-depth', { value: -1 }), 'INVALID_DEPTH');
    }));

  test('provider-managed sends no cap',
    () => withWorld({ hostDepth: 0 }, async (w) => {
      await w.dep.op('load-subagent-tool', { config: { provider: 'acp', maxDepth: 'provider-managed' } });
      const turn = await delegate(w, w.root, { tag: 'pm' });
      assert.equal(turn.message.is_error, undefined);
      assert.equal(turn.children.length, 1);
    }));

  test('at the cap a notice to work directly comes once per cap and depth',
    () => withWorld({}, async (w) => {
      await w.dep.op('load-subagent-tool', { config: { provider: 'spawn' } });
      const deep = (await w.dep.op('create-agent', { headerDepth: 3 })).agent;
      await w.dep.op('set-host-depth', { value: 2 });
      await delegate(w, deep, { tag: 'n1' });
      const contexts = () => w.gateway.of(deep).map((r) => r.context);
      assert.equal(contexts()[0].length, 1);
      assert.match(contexts()[0][0], /depth 3.*cap.* 2.*directly/s);
      assert.deepEqual(contexts().slice(1), [[]]);
      await w.dep.op('set-host-depth', { value: 1 });
      await w.dep.op('run-turn', { agent: deep, prompt: 'again' });
      assert.match(contexts().at(-1)[0], /is 1/);
      await w.dep.op('run-turn', { agent: w.root, prompt: 'root' });
      assert.deepEqual(w.gateway.of(w.root).at(-1).context, []);
      await w.dep.op('set-runtime-context', { enabled: false });
      await w.dep.op('set-host-depth', { value: 2 });
      const quiet = await delegate(w, deep, { tag: 'n2' });
      assert.deepEqual(contexts().at(-1), []);
      assert.equal(quiet.message.is_error, true);
    }));

  test('runs are disposed on every path and other stop reasons are errors naming them',
    () => withWorld({}, async (w) => {
      await w.dep.op('load-subagent-tool', { config: { provider: 'spawn' } });
      const ok = await delegate(w, w.root, { tag: 'ok', child: [{ text: 'output 7' }] });
      assert.match(ok.message.content, /output 7/);
      for (const stop of ['max-tokens', 'refusal', 'error', 'aborted']) {
        const turn = await delegate(w, w.root, { tag: stop, child: [{ text: 'partial', stop }] });
        assert.equal(turn.message.is_error, true);
        assert.ok(turn.message.content.includes(stop));
        assert.ok(!(await w.dep.op('agents')).includes(turn.children[0]));
      }
      assert.deepEqual(await w.dep.op('agents'), [w.root]);
    }));

  test('aborting the caller\'s turn cancels the child run', () => withWorld({ tools: [{ name: 'probe' }] },
    async (w) => {
      await w.dep.op('load-subagent-tool', { config: { provider: 'spawn' } });
      let live;
      const abort = async (request) => {
        live = (await w.dep.op('agents')).includes(request.agent);
        await w.dep.op('abort-turn', { agent: w.root });
        return { call: ['probe', {}, 'p1'] };
      };
      const turn = await delegate(w, w.root, { tag: 'abort', child: [abort, { text: 'after' }] });
      assert.equal(live, true);
      assert.equal(turn.result.stopReason, 'aborted');
      assert.deepEqual(turn.result.toolResults.map((r) => r.isError), [true]);
      assert.equal(w.gateway.of(turn.children[0]).length, 1);
      assert.equal((await w.dep.op('invocations')).filter((i) => i.tool === 'probe').length, 0);
      assert.ok(!(await w.dep.op('agents')).includes(turn.children[0]));
      await w.dep.op('abort-turn', { agent: w.root });
    }));
});
