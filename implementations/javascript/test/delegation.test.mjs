// Starting children and resuming them: gating, editions, depth, unpublished setup, rollback,
// descriptors and cold resume (CA, DE, EN, FR, PE).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { withWorld } from './helpers.mjs';

const TOOLS = [{ name: 'read' }, { name: 'write' }, { name: 'search' }];
const PERSONA = 'DEPLOYMENT of {{team}}';
const base = (extra = {}) => ({ tools: TOOLS, persona: PERSONA, variables: { team: 'T7', role: 'R' },
  sections: [{ name: 'house', text: 'HOUSE' }], ...extra });

async function observed(dep) {
  return { sessions: await dep.op('sessions'), agents: await dep.op('agents'),
    events: await dep.op('events'), invocations: await dep.op('invocations') };
}

describe('starting a child', () => {
  test('a preset persona shadows the deployment persona in its position, on both channels',
    () => withWorld(base({ presets: [{ name: 'p', persona: 'CHILD as {{role}}', toolFilter: { deny: ['write'] } }] }),
      async ({ dep, root, gateway }) => {
        const child = await dep.op('start', { request: { parent: root, provider: 'spawn',
          prompt: 'task', preset: 'p' } });
        assert.equal(child.depth, 1);
        const sections = await dep.op('prompt', { agent: child.agent });
        assert.deepEqual(sections, [{ name: 'deployment:persona-prefix', text: 'CHILD as R' },
          { name: 'house', text: 'HOUSE' }]);
        const [first] = gateway.of(child.agent);
        assert.equal(first.system, 'CHILD as R\n\nHOUSE');
        assert.deepEqual(first.tools.map((t) => t.name).sort(), ['read', 'search']);
        assert.equal((await dep.op('prompt', { agent: root }))[0].text, 'DEPLOYMENT of T7');
      }));

  test('a preset\'s own tools are its child\'s scope-local tools, hidden by no filter, shadowing',
    () => withWorld(base({ presets: [{ name: 'p', toolFilter: { deny: ['read', 'write'] },
      tools: [{ name: 'write', description: 'own write' }, { name: 'lima' }] }] }),
    async ({ dep, root }) => {
      const child = await dep.op('start', { request: { parent: root, provider: 'spawn',
        prompt: 'task', preset: 'p' } });
      const view = (await dep.op('view', { agent: child.agent }))
        .map((e) => [e.name, e.origin, e.description]).sort();
      assert.deepEqual(view, [['lima', 'local', ''], ['search', 'global', ''],
        ['write', 'local', 'own write']]);
      const rootView = (await dep.op('view', { agent: root })).map((e) => [e.name, e.origin]);
      assert.ok(!rootView.some(([name]) => name === 'lima'));
      assert.ok(rootView.some(([name, origin]) => name === 'write' && origin === 'global'));
    }));

  test('the preset-composition edition refuses request persona and toolFilter, creating nothing',
    () => withWorld(base(), async ({ dep, root }) => {
      const before = await observed(dep);
      for (const extra of [{ persona: '' }, { persona: null }, { toolFilter: { deny: ['write'] } }]) {
        const code = await dep.refused('start', { request: { parent: root, provider: 'spawn',
          prompt: 'x', ...extra } });
        assert.equal(code, 'REQUEST_CONTROLS_REFUSED');
      }
      assert.deepEqual(await observed(dep), before);
    }));

  test('the request-controls edition composes the child from the request over a preset',
    () => withWorld(base({ edition: 'request-controls',
      presets: [{ name: 'p', persona: 'PRESET', toolFilter: { deny: ['read'] } }] }),
    async ({ dep, root }) => {
      const child = await dep.op('start', { request: { parent: root, provider: 'fork',
        prompt: 'x', preset: 'p', persona: 'REQUEST {{team}}', toolFilter: { deny: ['write'] } } });
      assert.equal((await dep.op('prompt', { agent: child.agent }))[0].text, 'REQUEST T7');
      assert.deepEqual((await dep.op('view', { agent: child.agent })).map((e) => e.name).sort(),
        ['read', 'search']);
    }));

  test('a control the provider does not advertise is refused before anything, naming it',
    () => withWorld(base({ edition: 'request-controls', presets: [{ name: 'p', persona: '' }] }),
      async ({ dep, root, gateway }) => {
        const before = await observed(dep);
        for (const extra of [{ maxDepth: -1 }, { persona: 'x' }, { toolFilter: {} },
          { outputSchema: 'nope' }, { preset: 'p' }]) {
          const error = await dep.op('start', { request: { parent: root, provider: 'acp',
            prompt: 'x', ...extra } }).catch((e) => e.body);
          assert.equal(error.code, 'UNSUPPORTED_CAPABILITY', JSON.stringify(extra));
          assert.ok(error.message.includes(error.details.capability));
        }
        assert.equal(await dep.refused('start', { request: { parent: root, provider: 'nobody',
          prompt: 'x' } }), 'NO_PROVIDER');
        assert.deepEqual(await observed(dep), before);
        assert.equal(gateway.requests.length, 0);
      }));

  test('depth: recorded in the header, capped, and a refusal creates nothing',
    () => withWorld(base(), async ({ dep, root }) => {
      const child = await dep.op('start', { request: { parent: root, provider: 'spawn',
        prompt: 'x', maxDepth: 1 } });
      const header = (await dep.op('sessions')).find((h) => h.session === child.session);
      assert.equal(header.delegationDepth, 1);
      const before = await observed(dep);
      assert.equal(await dep.refused('start', { request: { parent: child.agent, provider: 'spawn',
        prompt: 'x', maxDepth: 1 } }), 'DEPTH_EXCEEDED');
      for (const maxDepth of [-0, 1.5, null, '1', true, 2 ** 53]) {
        assert.equal(await dep.refused('start', { request: { parent: root, provider: 'spawn',
          prompt: 'x', maxDepth } }), 'INVALID_DEPTH', String(maxDepth));
      }
      assert.deepEqual(await observed(dep), before);
      const deep = await dep.op('create-agent', { headerDepth: 1, runtimeDepth: 4,
        hasRuntimeDepth: true });
      assert.equal((await dep.op('start', { request: { parent: deep.agent, provider: 'acp',
        prompt: 'x' } })).depth, 5);
    }));

  test('a stored depth outside the domain is refused where it is read',
    () => withWorld(base(), async ({ dep, root }) => {
      const rootRef = await dep.op('root');
      await dep.op('put-session-header', { header: { session: rootRef.session,
        delegationDepth: -0 } });
      const [stored] = await dep.op('sessions');
      assert.ok(Object.is(stored.delegationDepth, -0));
      assert.equal(await dep.refused('start', { request: { parent: root, provider: 'spawn',
        prompt: 'x' } }), 'INVALID_DEPTH');
      assert.equal(await dep.refused('resume', { session: rootRef.session }), 'INVALID_DEPTH');
      assert.equal(await dep.refused('create-agent', { headerDepth: 'one' }), 'INVALID_DEPTH');
    }));

  test('the child is published once, already final, and its first event is agent.published',
    () => withWorld(base({ presets: [{ name: 'p', persona: 'P', toolFilter: { allow: ['read'] },
      outputSchema: { type: 'object', properties: { answer: { type: 'string' } } } }] }),
    async ({ dep, root }) => {
      const seen = (await dep.op('events')).length;
      const child = await dep.op('start', { request: { parent: root, provider: 'spawn',
        prompt: 'x', preset: 'p' } });
      const about = (await dep.op('events')).slice(seen).filter((e) => e.agent === child.agent);
      assert.deepEqual(about.map((e) => e.kind), ['agent.published', 'run.started', 'run.stopped']);
      const { snapshot } = about[0].data;
      assert.deepEqual(snapshot.view.map((e) => e.name), ['read', 'structured_output']);
      assert.equal(snapshot.prompt[0].text, 'P');
    }));

  test('a setup failure rolls back: nothing published, no model request',
    () => withWorld(base({ presets: [{ name: 'bad-filter', toolFilter: { allow: ['gone'] } },
      { name: 'bad-persona', persona: '{{ghost}}' }, { name: 'bad-schema', outputSchema: { type: 'string' } }] }),
    async ({ dep, root, gateway }) => {
      const before = await observed(dep);
      for (const [preset, code] of [['bad-filter', 'INVALID_TOOL_FILTER'],
        ['bad-persona', 'INVALID_TEMPLATE'], ['bad-schema', 'INVALID_OUTPUT_SCHEMA']]) {
        assert.equal(await dep.refused('start', { request: { parent: root, provider: 'spawn',
          prompt: 'x', preset } }), code);
      }
      assert.deepEqual(await observed(dep), before);
      assert.equal(gateway.requests.length, 0);
    }));

  test('structured output comes back as the run\'s output',
    () => withWorld(base({ presets: [{ name: 'p',
      outputSchema: { type: 'object', required: ['answer'] } }] }),
    async ({ dep, root, gateway }) => {
      gateway.script('<so>', { call: ['structured_output', { answer: 42 }] }, { text: 'done' });
      const result = await dep.op('start', { request: { parent: root, provider: 'spawn',
        prompt: '<so>', preset: 'p' } });
      assert.deepEqual(result.output, { answer: 42 });
    }));

  test('a fork child is seeded with the parent\'s completed turns, a spawn child is not',
    () => withWorld(base(), async ({ dep, root, gateway }) => {
      await dep.op('run-turn', { agent: root, prompt: 'EARLIER TURN' });
      const fork = await dep.op('start', { request: { parent: root, provider: 'fork', prompt: 'F' } });
      const spawn = await dep.op('start', { request: { parent: root, provider: 'spawn', prompt: 'S' } });
      const users = (agent) => gateway.of(agent)[0].messages.filter((m) => m.role === 'user')
        .map((m) => m.content);
      assert.deepEqual(users(fork.agent), ['EARLIER TURN', 'F']);
      assert.deepEqual(users(spawn.agent), ['S']);
    }));
});

describe('cold resume', () => {
  test('restores the historical composition and depth before publication',
    () => withWorld(base({ edition: 'request-controls', tools: [...TOOLS, { name: 'doomed' }] }),
      async ({ dep, root, gateway }) => {
        const request = { parent: root, provider: 'spawn', prompt: 'x', persona: 'HIST {{role}}',
          toolFilter: { allow: ['read', 'doomed'] } };
        const child = await dep.op('start', { request });
        const resumed = await dep.op('resume', { session: child.session });
        assert.notEqual(resumed.agent, child.agent);
        assert.equal(resumed.depth, 1);
        assert.ok(!(await dep.op('agents')).includes(child.agent));
        await dep.op('run-turn', { agent: resumed.agent, prompt: 'again' });
        const [first] = gateway.of(resumed.agent);
        assert.equal(first.system, 'HIST R\n\nHOUSE');
        assert.deepEqual(first.tools.map((t) => t.name).sort(), ['doomed', 'read']);
        assert.deepEqual(first.messages.filter((m) => m.role === 'user').map((m) => m.content),
          ['x', 'again']);
        assert.equal(await dep.refused('start', { request: { parent: resumed.agent,
          provider: 'spawn', prompt: 'y', maxDepth: 1 } }), 'DEPTH_EXCEEDED');
        const second = await dep.op('start', { request });
        await dep.op('unregister-tool', { name: 'doomed' });
        const before = await observed(dep);
        const error = await dep.op('resume', { session: second.session }).catch((e) => e.body);
        assert.equal(error.code, 'NOT_RESUMABLE');
        assert.deepEqual(error.details.offending, ['doomed']);
        assert.deepEqual(await observed(dep), before);
        assert.equal(await dep.refused('resume', { session: 'nope' }), 'UNKNOWN_SESSION');
      }));
});
