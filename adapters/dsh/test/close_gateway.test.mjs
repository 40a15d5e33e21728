// src/dsh_host.mjs: closing a deployment closes its client of the kit's model gateway. Each
// deployment has one (src/server.mjs makes it), with keep-alive sockets; left open, a run of
// thousands of deployments held as many idle connections to the gateway, which serves at most
// 1024 at once and answers the rest 503: children then failed before their first model
// request. Run by tests/http/test_dsh_sdk_text.py with the Node 22 `npm ci` installs.

import assert from 'node:assert/strict';
import http from 'node:http';
import test from 'node:test';

import { DshHost } from '../src/dsh_host.mjs';
import { GatewayClient } from '../src/gateway.mjs';

const REPLY = JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'ok' },
  finish_reason: 'stop' }] });

async function gateway() {
  const open = new Set();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end(REPLY));
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, open, url: `http://127.0.0.1:${server.address().port}` };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 100));

for (const deployments of [1, 3]) {
  test(`closing ${deployments} deployment(s) leaves no connection to the gateway open`,
    async () => {
      const { server, open, url } = await gateway();
      try {
        const hosts = [];
        for (let i = 0; i < deployments; i += 1) {
          const client = new GatewayClient(url);
          const reply = await client.complete({ agent: `a${i}`, system: '', tools: [],
            messages: [{ role: 'user', content: 'hi' }], context: [] });
          assert.equal(reply.stopReason, 'completed');
          hosts.push(new DshHost({}, client));
        }
        await settled();
        assert.equal(open.size, deployments); // one kept-alive socket per deployment's client
        for (const host of hosts) host.close();
        await settled();
        assert.equal(open.size, 0);
      } finally {
        server.close();
      }
    });
}
