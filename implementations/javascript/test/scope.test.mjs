// Views through the one resolver: restrictions, locals, run_code, the live registry, isolation
// (TF-01..TF-14, TF-16).

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { world } from './helpers.mjs';

const ABC = [{ name: 'alpha' }, { name: 'bravo' }, { name: 'charlie' }];
const names = (view) => view.map((e) => `${e.name}:${e.origin}`).sort();

describe('a scope\'s view', () => {
  let w;
  beforeEach(async () => { w = await world({ tools: ABC }); });
  afterEach(() => w.done());

  test('restrictions intersect in any order and dispose lifts exactly one', async () => {
    const agent = (await w.dep.op('create-agent')).agent;
    const first = await w.dep.op('install-restriction', { agent, restriction: { allow: ['alpha', 'bravo'] } });
    await w.dep.op('install-restriction', { agent, restriction: { deny: ['bravo'] } });
    assert.deepEqual(names(await w.dep.op('view', { agent })), ['alpha:global']);
    await w.dep.op('dispose-restriction', { agent, handle: first });
    await w.dep.op('dispose-restriction', { agent, handle: first });
    assert.deepEqual(names(await w.dep.op('view', { agent })), ['alpha:global', 'charlie:global']);
    assert.equal(await w.dep.refused('dispose-restriction', { agent, handle: 'nope' }),
      'UNKNOWN_RESTRICTION');
  });

  test('a refused restriction lists every offending name and installs nothing', async () => {
    await w.dep.op('register-tool', { tool: { name: 'lima' }, agent: w.root });
    const before = await w.dep.op('view', { agent: w.root });
    const answer = await w.dep.op('install-restriction', {
      agent: w.root, restriction: { allow: ['alpha', 'alphaa', 'lima'], deny: ['run_code'] },
    }).catch((error) => error.body);
    assert.equal(answer.code, 'INVALID_TOOL_FILTER');
    assert.deepEqual(answer.details.offending, ['alphaa', 'lima', 'run_code']);
    assert.deepEqual(await w.dep.op('view', { agent: w.root }), before);
    assert.equal(await w.dep.refused('install-restriction', { agent: w.root, restriction: {} }),
      'INVALID_TOOL_FILTER');
  });

  test('locals are added after the filter and a local shadows a global in its scope only', async () => {
    const agent = (await w.dep.op('create-agent')).agent;
    await w.dep.op('install-restriction', { agent, restriction: { allow: [] } });
    await w.dep.op('register-tool', { agent, tool: { name: 'bravo', description: 'local bravo' } });
    assert.deepEqual(names(await w.dep.op('view', { agent })), ['bravo:local']);
    const [schema] = await w.dep.op('tool-schemas', { agent });
    assert.equal(schema.description, 'local bravo');
    await w.dep.op('execute', { agent, name: 'bravo', arguments: {} });
    await w.dep.op('execute', { agent: w.root, name: 'bravo', arguments: {} });
    const runs = (await w.dep.op('invocations')).map((i) => [i.tool, i.origin, i.agent]);
    assert.deepEqual(runs, [['bravo', 'local', agent], ['bravo', 'global', w.root]]);
  });

  test('run_code is reserved, outside the filter, and only offered in ptc and both', async () => {
    assert.equal(await w.dep.refused('register-tool', { tool: { name: 'run_code' } }), 'RESERVED_NAME');
    assert.equal(await w.dep.refused('register-tool', { tool: { name: 'run_code' }, agent: w.root }),
      'RESERVED_NAME');
    await w.dep.op('install-restriction', { agent: w.root, restriction: { allow: [] } });
    assert.deepEqual(await w.dep.op('view', { agent: w.root }), []);
    await w.dep.op('set-mode', { agent: w.root, mode: 'both' });
    assert.deepEqual(names(await w.dep.op('view', { agent: w.root })), ['run_code:reserved']);
  });

  test('the registry is live: later globals follow allow and deny, removal is immediate', async () => {
    const denying = (await w.dep.op('create-agent')).agent;
    const allowing = (await w.dep.op('create-agent')).agent;
    await w.dep.op('install-restriction', { agent: denying, restriction: { deny: ['bravo'] } });
    const handle = await w.dep.op('install-restriction', { agent: allowing,
      restriction: { allow: ['alpha', 'bravo'] } });
    await w.dep.op('register-tool', { tool: { name: 'delta' } });
    await w.dep.op('unregister-tool', { name: 'bravo' });
    assert.deepEqual(names(await w.dep.op('view', { agent: denying })),
      ['alpha:global', 'charlie:global', 'delta:global']);
    assert.deepEqual(names(await w.dep.op('view', { agent: allowing })), ['alpha:global']);
    await w.dep.op('register-tool', { tool: { name: 'bravo' } });
    assert.deepEqual(names(await w.dep.op('view', { agent: allowing })),
      ['alpha:global', 'bravo:global']);
    await w.dep.op('dispose-restriction', { agent: allowing, handle });
  });

  test('what one scope installs changes no other scope', async () => {
    const [a, b] = [(await w.dep.op('create-agent')).agent, (await w.dep.op('create-agent')).agent];
    const before = [await w.dep.op('view', {}), await w.dep.op('view', { agent: b })];
    await w.dep.op('install-restriction', { agent: a, restriction: { allow: ['alpha'] } });
    await w.dep.op('register-tool', { agent: a, tool: { name: 'lima' } });
    assert.deepEqual([await w.dep.op('view', {}), await w.dep.op('view', { agent: b })], before);
  });

  test('schemas, lookup, execution and SDK bindings are one set in every mode', async () => {
    await w.dep.op('install-restriction', { agent: w.root, restriction: { deny: ['bravo'] } });
    for (const mode of ['native', 'ptc', 'both']) {
      await w.dep.op('set-mode', { agent: w.root, mode });
      const schemas = (await w.dep.op('tool-schemas', { agent: w.root })).map((s) => s.name).sort();
      const sdk = (await w.dep.op('sdk-bindings', { agent: w.root })).sort();
      const want = { native: [['alpha', 'charlie'], []], ptc: [['run_code'], ['alpha', 'charlie']],
        both: [['alpha', 'charlie', 'run_code'], ['alpha', 'charlie']] }[mode];
      assert.deepEqual([schemas, sdk], want, mode);
      assert.equal(await w.dep.op('lookup', { agent: w.root, name: 'bravo' }), null);
      const result = await w.dep.op('execute', { agent: w.root, name: 'bravo', arguments: {} });
      assert.deepEqual([result.isError, result.code], [true, 'UNKNOWN_TOOL']);
    }
    assert.equal((await w.dep.op('invocations')).length, 0);
  });

  test('run_code reaches the visible tools through the SDK and nothing else', async () => {
    await w.dep.op('install-restriction', { agent: w.root, restriction: { deny: ['bravo'] } });
    await w.dep.op('set-mode', { agent: w.root, mode: 'ptc' });
    const code = 'const a = await tools.alpha({x: 1}); const b = await call("bravo", {});'
      + 'return {a: a.isError, b: b.code, bound: typeof tools.bravo};';
    const result = await w.dep.op('execute', { agent: w.root, name: 'run_code', arguments: { code } });
    assert.equal(result.isError, false);
    assert.deepEqual(result.content.result, { a: false, b: 'UNKNOWN_TOOL', bound: 'undefined' });
    const runs = (await w.dep.op('invocations')).map((i) => `${i.tool}:${i.origin}`);
    assert.deepEqual(runs, ['run_code:reserved', 'alpha:global']);
  });

  test('the run-code operation runs bound tools once each through the SDK, in order', async () => {
    await w.dep.op('register-tool', { tool: { name: 'alpha' }, agent: w.root });
    await w.dep.op('install-restriction', { agent: w.root, restriction: { deny: ['bravo'] } });
    for (const mode of ['ptc', 'both']) {
      await w.dep.op('set-mode', { agent: w.root, mode });
      const before = (await w.dep.op('invocations')).length;
      const args = { city: 'Zürich', n: [1, { deep: null }], 'a"b': '`${x}`\u2028' };
      const calls = [{ name: 'charlie', arguments: args }, { name: 'alpha' }, { name: 'bravo' }];
      const results = await w.dep.op('run-code', { agent: w.root, calls });
      assert.deepEqual(results.map((r) => [r.isError, r.code]),
        [[false, null], [false, null], [true, 'UNKNOWN_TOOL']], mode);
      assert.deepEqual(results[0].content.arguments, args);
      const runs = (await w.dep.op('invocations')).slice(before).filter((i) => i.tool !== 'run_code');
      assert.deepEqual(runs.map((i) => [i.tool, i.origin, i.arguments]),
        [['charlie', 'global', args], ['alpha', 'local', {}]]);
    }
  });

  test('the run-code operation refuses what the SDK does not bind with UNKNOWN_TOOL, no body runs', async () => {
    await w.dep.op('install-restriction', { agent: w.root, restriction: { deny: ['bravo'] } });
    const cases = { native: ['alpha', 'bravo', 'zulu', 'run_code'],
      ptc: ['bravo', 'zulu', 'run_code', '__proto__', 'constructor', 'Alpha', 'alph'],
      both: ['bravo', 'zulu', 'run_code', 'toString', 'hasOwnProperty'] };
    for (const [mode, hidden] of Object.entries(cases)) {
      await w.dep.op('set-mode', { agent: w.root, mode });
      const results = await w.dep.op('run-code', { agent: w.root,
        calls: hidden.map((name) => ({ name, arguments: {} })) });
      assert.deepEqual(results.map((r) => [r.isError, r.code]),
        hidden.map(() => [true, 'UNKNOWN_TOOL']), mode);
    }
    const runs = (await w.dep.op('invocations')).filter((i) => i.tool !== 'run_code');
    assert.deepEqual(runs, []);
    assert.equal(await w.dep.refused('run-code', { agent: w.root, calls: [{ tool: 'alpha' }] }),
      'INVALID_REQUEST');
  });

  test('a forged model call gets an UNKNOWN_TOOL result the model sees, and the turn goes on', async () => {
    await w.dep.op('install-restriction', { agent: w.root, restriction: { deny: ['bravo'] } });
    w.gateway.script('<forge>', { call: ['bravo', {}, 'c1'] }, { text: 'ok' });
    const result = await w.dep.op('run-turn', { agent: w.root, prompt: '<forge> go' });
    assert.equal(result.stopReason, 'completed');
    assert.deepEqual(result.toolResults.map((r) => [r.isError, r.code]), [[true, 'UNKNOWN_TOOL']]);
    const second = w.gateway.of(w.root)[1];
    const tool = second.messages.find((m) => m.role === 'tool');
    assert.equal(tool.is_error, true);
    assert.match(tool.content, /UNKNOWN_TOOL/);
    assert.equal((await w.dep.op('invocations')).length, 0);
  });

  test('a call whose arguments are not a JSON object gets an error result, no body runs', async () => {
    w.gateway.script('<raw>', { call: ['alpha', '{not json', 'c1'] }, { call: ['alpha', '[1]', 'c2'] },
      { text: 'ok' });
    const result = await w.dep.op('run-turn', { agent: w.root, prompt: '<raw> go' });
    assert.equal(result.stopReason, 'completed');
    assert.deepEqual(result.toolResults.map((r) => [r.isError, r.code]),
      [[true, 'INVALID_REQUEST'], [true, 'INVALID_REQUEST']]);
    assert.equal((await w.dep.op('invocations')).length, 0);
    const resent = w.gateway.of(w.root)[1].messages.find((m) => m.role === 'assistant');
    assert.equal(resent.tool_calls[0].function.arguments, '{not json');
  });
});

describe('guidance sections (TF-16)', () => {
  test('a section guiding a tool is left out where the tool is hidden, prose is kept', async () => {
    const w = await world({ tools: ABC, sections: [
      { name: 'guide', text: 'GUIDE bravo', guides: 'bravo' }, { name: 'notes', text: 'NOTES' }] });
    try {
      const agent = (await w.dep.op('create-agent')).agent;
      await w.dep.op('install-restriction', { agent, restriction: { deny: ['bravo'] } });
      assert.deepEqual((await w.dep.op('prompt', { agent })).map((s) => s.name), ['notes']);
      assert.deepEqual((await w.dep.op('prompt', { agent: w.root })).map((s) => s.name),
        ['guide', 'notes']);
      await w.dep.op('run-turn', { agent, prompt: 'hi' });
      assert.equal(w.gateway.of(agent)[0].system, 'NOTES');
    } finally {
      await w.done();
    }
  });
});

describe('the root started from a preset (rootPreset, docs/driver-api.md#dialect)', () => {
  const presets = [{ name: 'lead', persona: 'LEAD {{team}}', toolFilter: { deny: ['bravo'] } }];

  test('carries the preset\'s tool filter and persona on the root\'s scope', async () => {
    const w = await world({ tools: ABC, presets, variables: { team: 'blue' }, rootPreset: 'lead' });
    try {
      assert.deepEqual(names(await w.dep.op('view', { agent: w.root })),
        ['alpha:global', 'charlie:global']);
      const prompt = await w.dep.op('prompt', { agent: w.root });
      assert.deepEqual(prompt.map((s) => s.text), ['LEAD blue']);
    } finally {
      await w.done();
    }
  });

  test('an unknown preset, an invalid filter and permission rules are refused', async () => {
    const w = await world({ tools: ABC, presets });
    try {
      const refusal = async (config) => {
        try {
          await w.driver.deploy(w.gateway, config);
          return 'accepted';
        } catch (error) {
          return error.body.code;
        }
      };
      assert.equal(await refusal({ tools: ABC, presets, rootPreset: 'nobody' }), 'UNKNOWN_PRESET');
      assert.equal(await refusal({ tools: ABC, rootPreset: 'bad',
        presets: [{ name: 'bad', toolFilter: { allow: ['zulu'] } }] }), 'INVALID_TOOL_FILTER');
      assert.equal(await refusal({ tools: ABC, permissions: [{ deny: ['alpha'] }] }),
        'INVALID_CONFIG');
    } finally {
      await w.done();
    }
  });
});
