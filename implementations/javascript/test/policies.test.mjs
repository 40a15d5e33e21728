// Spawn policies (SP-01) and model selection (MO-01, MO-02): policies installed on a scope and
// composed into a child, validated against the presets; the model every request names.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { withWorld as inWorld } from './helpers.mjs';

const PRESETS = [{ name: 'reviewer' }, { name: 'Reviewer' }, { name: 'writer', model: 'small' },
  { name: 'lead', spawnPolicy: { deny: ['writer'] }, model: 'lead-model' }];
const start = (parent, extra = {}) => ({ request: { parent, provider: 'spawn', prompt: 'go',
  ...extra } });

const withWorld = (config, body) => inWorld({ presets: PRESETS, model: 'root-model', ...config },
  body);

describe('spawn policies', () => {
  test('a live policy admits allow before deny, several intersect, disposing lifts one',
    () => withWorld({}, async ({ dep, root }) => {
      const first = await dep.op('install-spawn-policy', { agent: root,
        policy: { allow: ['reviewer', 'writer'], deny: ['writer'] } });
      await dep.op('install-spawn-policy', { agent: root, policy: { deny: ['Reviewer'] } });
      assert.equal((await dep.op('start', start(root, { preset: 'reviewer' }))).depth, 1);
      const sessions = (await dep.op('sessions')).length;
      for (const preset of ['writer', 'Reviewer', 'lead']) {
        assert.equal(await dep.refused('start', start(root, { preset })), 'SPAWN_DENIED');
      }
      assert.equal((await dep.op('sessions')).length, sessions);
      assert.equal((await dep.op('start', start(root))).depth, 1); // no preset: no policy
      await dep.op('dispose-spawn-policy', { agent: root, handle: first });
      await dep.op('dispose-spawn-policy', { agent: root, handle: first });
      assert.equal((await dep.op('start', start(root, { preset: 'writer' }))).depth, 1);
      assert.equal(await dep.refused('dispose-restriction', { agent: root, handle: first }),
        'UNKNOWN_RESTRICTION');
    }));

  test('a policy naming presets the deployment lacks is refused listing them all',
    () => withWorld({}, async ({ dep, root }) => {
      const error = await dep.refusal('install-spawn-policy', { agent: root,
        policy: { allow: ['reviewer', 'REVIEWER', 'critic'] } });
      assert.equal(error.code, 'INVALID_SPAWN_POLICY');
      assert.deepEqual(error.details.offending, ['REVIEWER', 'critic']);
      assert.equal(await dep.refused('start', start(root, { spawnPolicy: { deny: ['x'] } })),
        'INVALID_SPAWN_POLICY');
    }));

  test('a child composed with a policy may not start what it refuses, resumed or not',
    () => withWorld({}, async ({ dep, root }) => {
      const lead = await dep.op('start', start(root, { preset: 'lead' }));
      assert.equal(await dep.refused('start', start(lead.agent, { preset: 'writer' })),
        'SPAWN_DENIED');
      const resumed = await dep.op('resume', { session: lead.session });
      assert.equal(await dep.refused('start', start(resumed.agent, { preset: 'writer' })),
        'SPAWN_DENIED');
      assert.equal(await dep.refused('start', { request: { parent: root, provider: 'acp',
        prompt: 'go', spawnPolicy: { allow: [] } } }), 'UNSUPPORTED_CAPABILITY');
    }));
});

describe('model selection', () => {
  test('a child names its composed model, else its parent\'s, on every request and resume',
    () => withWorld({}, async ({ dep, root, gateway }) => {
      await dep.op('run-turn', { agent: root, prompt: 'hello' });
      const writer = await dep.op('start', start(root, { preset: 'writer' }));
      const chosen = await dep.op('start', start(root, { preset: 'writer', model: 'tiny' }));
      const plain = await dep.op('start', start(root));
      const grand = await dep.op('start', start(chosen.agent));
      const model = (agent) => gateway.of(agent).map((r) => r.model);
      assert.deepEqual(model(root), ['root-model']);
      assert.deepEqual(model(writer.agent), ['small']);
      assert.deepEqual(model(chosen.agent), ['tiny']);
      assert.deepEqual(model(plain.agent), ['root-model']);
      assert.deepEqual(model(grand.agent), ['tiny']);
      const resumed = await dep.op('resume', { session: chosen.session });
      await dep.op('run-turn', { agent: resumed.agent, prompt: 'again' });
      assert.deepEqual(model(resumed.agent), ['tiny']);
      assert.equal(await dep.refused('start', start(root, { model: '' })), 'INVALID_REQUEST');
      assert.equal(await dep.refused('start', { request: { parent: root, provider: 'acp',
        prompt: 'go', model: 'm' } }), 'UNSUPPORTED_CAPABILITY');
    }));
});
