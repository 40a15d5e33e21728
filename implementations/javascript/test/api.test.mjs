// The HTTP driver API: routes, the JSON codec on the wire, refusals as 4xx JSON bodies.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { world } from './helpers.mjs';

describe('the driver API', () => {
  let w;
  before(async () => { w = await world({ tools: [{ name: 'alpha' }] }); });
  after(() => w.done());

  test('info lists both editions, the subagent-tool component and three providers', async () => {
    const { status, body, version } = await w.driver.raw('GET', '/v1/info');
    assert.equal(status, 200);
    assert.equal(version, '1.3');
    assert.equal(body.protocol, '1.3');
    assert.deepEqual(body.editions, ['preset-composition', 'request-controls']);
    assert.deepEqual(body.components, ['subagent-tool']);
    assert.deepEqual(body.providers.map((p) => p.name), ['spawn', 'fork', 'acp']);
    assert.deepEqual(body.providers[2].capabilities, []);
  });

  test('unknown routes, operations and deployments are PROTOCOL_ERROR, never 5xx', async () => {
    for (const [method, path, status] of [['GET', '/nope', 404], ['POST', '/v1/info', 405],
      ['POST', `/v1/deployments/${w.dep.id}/no-such-op`, 404],
      ['POST', '/v1/deployments/d999/root', 404], ['GET', '/v1/deployments/%E0%A4%A', 404]]) {
      const answer = await w.driver.raw(method, path, method === 'GET' ? undefined : {});
      assert.equal(answer.status, status, `${method} ${path}`);
      assert.equal(answer.body.code, 'PROTOCOL_ERROR');
    }
  });

  test('a batch answers each call as it would be alone, in order, a refusal not stopping the '
    + 'next', async () => {
    const path = `/v1/deployments/${w.dep.id}/batch`;
    const { status, body } = await w.driver.raw('POST', path, { calls: [
      { operation: 'register-tool', arguments: { tool: { name: 'batched' } } },
      { operation: 'register-tool', arguments: { tool: { name: 'batched' } } },
      { operation: 'view', arguments: { agent: null } },
      { operation: 'no-such-op' },
      { operation: 'unregister-tool', arguments: { name: 'batched' } },
      { operation: 'view' },
    ] });
    assert.equal(status, 200);
    assert.equal(body.results.length, 6);
    assert.deepEqual(body.results[0], { result: null });
    assert.equal(body.results[1].error.code, 'DUPLICATE_TOOL');
    assert.ok(body.results[2].result.some((e) => e.name === 'batched'));
    assert.equal(body.results[3].error.code, 'PROTOCOL_ERROR');
    assert.deepEqual(body.results[4], { result: null });
    assert.ok(!body.results[5].result.some((e) => e.name === 'batched'));
  });

  test('a batch of the wrong shape is refused whole: nothing runs', async () => {
    const path = `/v1/deployments/${w.dep.id}/batch`;
    const before_ = await w.dep.op('view', { agent: null });
    for (const body of [{}, { calls: {} }, { calls: [{ arguments: {} }] },
      { calls: [{ operation: 'register-tool', arguments: { tool: { name: 'never' } } }, 5] },
      { calls: [], extra: 1 }, { calls: Array(257).fill({ operation: 'view' }) }]) {
      const answer = await w.driver.raw('POST', path, body);
      assert.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(answer.body.code, 'INVALID_REQUEST');
    }
    assert.deepEqual(await w.dep.op('view', { agent: null }), before_);
  });

  test('a raw NaN token is malformed: 400 INVALID_REQUEST and nothing changes', async () => {
    const before_ = await w.dep.op('sessions');
    const answer = await w.driver.raw('POST', `/v1/deployments/${w.dep.id}/create-agent`,
      '{"headerDepth": NaN}');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 'INVALID_REQUEST');
    assert.deepEqual(await w.dep.op('sessions'), before_);
  });

  test('a tagged NaN reaches the runtime and is refused as a depth', async () => {
    const answer = await w.driver.raw('POST', `/v1/deployments/${w.dep.id}/create-agent`,
      '{"headerDepth": {"$number": "NaN"}}');
    assert.equal(answer.status, 422);
    assert.equal(answer.body.code, 'INVALID_DEPTH');
  });

  test('unknown, missing and mistyped arguments are INVALID_REQUEST', async () => {
    assert.equal(await w.dep.refused('view', { agentt: null }), 'INVALID_REQUEST');
    assert.equal(await w.dep.refused('resume', {}), 'INVALID_REQUEST');
    assert.equal(await w.dep.refused('register-tool', { tool: { name: 5 } }), 'INVALID_REQUEST');
    assert.equal(await w.dep.refused('set-mode', { agent: w.root, mode: 'fast' }),
      'INVALID_REQUEST');
    for (const body of ['[1]', 'null', '"x"']) {
      const bad = await w.driver.raw('POST', `/v1/deployments/${w.dep.id}/root`, body);
      assert.equal(bad.status, 400, body);
    }
    const empty = await w.driver.raw('POST', `/v1/deployments/${w.dep.id}/root`, '');
    assert.equal(empty.status, 200);
  });

  test('a deployment config of the wrong shape or with a bad persona is refused', async () => {
    for (const [config, code] of [[{ mode: 'fast' }, 'INVALID_REQUEST'],
      [{ extra: 1 }, 'INVALID_REQUEST'], [{ persona: 'hi {{who}}' }, 'INVALID_TEMPLATE'],
      [{ hostDepth: -1 }, 'INVALID_DEPTH'], [{ tools: [{ name: 'run_code' }] }, 'RESERVED_NAME'],
      [{ tools: [{ name: 'a' }, { name: 'a' }] }, 'DUPLICATE_TOOL']]) {
      const answer = await w.driver.raw('POST', '/v1/deployments',
        { ...config, gatewayUrl: w.gateway.url });
      assert.equal(answer.body.code, code, JSON.stringify(config));
      assert.ok(answer.status >= 400 && answer.status < 500);
    }
  });

  test('closing a deployment makes it unknown', async () => {
    const dep = await w.driver.deploy(w.gateway);
    assert.equal((await w.driver.raw('DELETE', `/v1/deployments/${dep.id}`)).status, 200);
    assert.equal((await w.driver.raw('POST', `/v1/deployments/${dep.id}/root`)).status, 404);
  });
});
