// Test helpers: a scripted, recording model gateway speaking Chat Completions (like the kit's)
// and a client for the driver API of an in-process DriverServer.

import http from 'node:http';

import { DriverServer } from '../src/server.mjs';
import { dumps, loads } from '../src/wire.mjs';

const CONTEXT = '[runtime-context] ';

/** A reply: {text}, {call: [name, args (an object, or raw argument text), id]},
 * {stop: reason, text}, or async (request) => reply. */
export class FakeGateway {
  constructor() {
    this.scripts = new Map(); // marker -> replies
    this.bound = new Map(); // agent -> marker
    this.requests = []; // {agent, system, tools, messages, context, model}
    this.server = http.createServer((req, res) => this.#serve(req, res));
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}/d/g1`;
    return this;
  }

  close() {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }

  script(marker, ...replies) {
    this.scripts.set(marker, replies);
    return marker;
  }

  of(agent) {
    return this.requests.filter((r) => r.agent === agent);
  }

  agentsFor(marker) {
    return [...this.bound].filter(([, m]) => m === marker).map(([a]) => a);
  }

  async #serve(req, res) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const agent = decodeURIComponent(req.url.split('/agents/')[1].split('/v1/')[0]);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const [system, ...rest] = body.messages;
    const context = rest.filter((m) => m.role === 'user' && m.content.startsWith(CONTEXT))
      .map((m) => m.content.slice(CONTEXT.length));
    const messages = rest.filter((m) => !(m.role === 'user' && m.content.startsWith(CONTEXT)));
    const request = { agent, system: system.content, messages, context,
      tools: (body.tools ?? []).map((t) => t.function), model: body.model };
    this.requests.push(request);
    if (!this.bound.has(agent)) {
      const user = messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
      const taken = new Set(this.bound.values());
      for (const marker of this.scripts.keys()) {
        if (user.includes(marker) && !taken.has(marker)) { this.bound.set(agent, marker); break; }
      }
    }
    const queue = this.scripts.get(this.bound.get(agent)) ?? [];
    let reply = queue.length ? queue.shift() : { text: 'done' };
    if (typeof reply === 'function') reply = await reply(request);
    const message = { role: 'assistant', content: reply.text ?? null };
    let finish = 'stop';
    if (reply.call) {
      const [name, args = {}, id = 'call-1'] = reply.call;
      message.tool_calls = [{ id, type: 'function',
        function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } }];
      finish = 'tool_calls';
    }
    if (reply.stop) finish = { 'max-tokens': 'length', refusal: 'content_filter' }[reply.stop] ?? reply.stop;
    const out = JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'm',
      choices: [{ index: 0, message, finish_reason: finish }] });
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(out);
  }
}

export class Driver {
  async start() {
    this.server = new DriverServer({ modelTimeoutMs: 10000 });
    this.url = await this.server.listen(0);
    return this;
  }

  close() {
    return this.server.close();
  }

  async raw(method, path, body) {
    const answer = await fetch(this.url + path, { method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : (typeof body === 'string' ? body : dumps(body)) });
    const text = await answer.text();
    return { status: answer.status, body: text ? loads(text) : null,
      version: answer.headers.get('x-subagent-tck-protocol') };
  }

  async deploy(gateway, config = {}) {
    const { status, body } = await this.raw('POST', '/v1/deployments',
      { ...config, gatewayUrl: gateway.url });
    if (status !== 201) throw Object.assign(new Error(`deploy: ${status} ${dumps(body)}`), { body });
    return new Dep(this, body.deployment);
  }
}

export class Dep {
  constructor(driver, id) {
    this.driver = driver;
    this.id = id;
  }

  /** The result, or throws an Error carrying {status, body} for a refusal. */
  async op(name, args = {}) {
    const { status, body } = await this.driver.raw('POST', `/v1/deployments/${this.id}/${name}`, args);
    if (status !== 200) {
      throw Object.assign(new Error(`${name}: ${status} ${dumps(body)}`), { status, body });
    }
    return body;
  }

  /** The refusal's code (fails when the operation succeeds). */
  async refused(name, args = {}) {
    return (await this.refusal(name, args)).code;
  }

  /** The error body of a refused operation ({code, message, details}). */
  async refusal(name, args = {}) {
    try {
      const result = await this.op(name, args);
      throw new Error(`${name} was accepted: ${dumps(result)}`);
    } catch (error) {
      if (!error.body) throw error;
      return error.body;
    }
  }
}

/** A fresh gateway and driver for one test; `done()` closes both. */
export async function world(config = {}) {
  const gateway = await new FakeGateway().start();
  const driver = await new Driver().start();
  const dep = await driver.deploy(gateway, config);
  const root = (await dep.op('root')).agent;
  return { gateway, driver, dep, root, done: async () => { await driver.close(); await gateway.close(); } };
}

/** `body` run in a fresh world of `config` (world), closed after it whatever it did. */
export async function withWorld(config, body) {
  const w = await world(config);
  try {
    await body(w);
  } finally {
    await w.done();
  }
}
