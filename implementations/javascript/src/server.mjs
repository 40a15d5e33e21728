// The HTTP driver API (docs/driver-api.md; conformance/transports/wire.py is the route table):
//   GET    /v1/info                         TargetInfo
//   POST   /v1/deployments                  a DeploymentConfig plus gatewayUrl -> 201 {deployment}
//   POST   /v1/deployments/{id}/{operation} the operation's arguments -> its result
//   DELETE /v1/deployments/{id}             close it
//   POST   /v1/deployments/{id}/batch       {calls: [{operation, arguments}]} -> {results: [...]}
// Bodies are read as JavaScript reads JSON, with the tagged non-finite numbers undone; a body
// that is not standard JSON (a raw NaN token included) is 400 INVALID_REQUEST before anything
// runs. Refusals are 4xx JSON bodies {code, message, details}; only a crash of this runtime is
// a 5xx.

import http from 'node:http';

import { decodeArguments } from './arguments.mjs';
import { Deployment, OPERATIONS } from './deployment.mjs';
import { Code, TckError, statusOf } from './errors.mjs';
import { GatewayClient } from './gateway.mjs';
import { CATALOGUE, info } from './providers.mjs';
import { Malformed, dumps, errorBody, loads } from './wire.mjs';

// 1.1 added the run-code operation, 1.3 the dialect (docs/driver-api.md#dialect)
export const PROTOCOL_VERSION = '1.3';
export const VERSION_HEADER = 'x-subagent-tck-protocol';
export const MAX_BODY = 8 * 1024 * 1024;
/** The most calls one batch may carry (docs/driver-api.md#batch). */
export const MAX_BATCH = 256;
export const VERSION = '0.1.0';
/** No body at all: allowed where an operation requires no argument (JSON null is not). */
const EMPTY = Symbol('empty body');

/**
 * The GET /v1/info body of a target this server serves: what the target says of itself, with
 * the protocol this server speaks and the subagent tool as its component (every target served
 * here has it; `more` may say otherwise).
 */
export function infoBody({ name, version, editions, providers, ...more }) {
  return {
    name, version, protocol: PROTOCOL_VERSION, editions, components: ['subagent-tool'], providers,
    ...more,
  };
}

export function targetInfo() {
  return infoBody({
    name: 'subagent-tck-js',
    version: VERSION,
    editions: ['preset-composition', 'request-controls'],
    providers: CATALOGUE.map(info),
    // where a restriction can be put (docs/driver-api.md#dialect): a running agent's scope, a
    // child's composition, the root's preset
    restrictionChannels: [{ kind: 'live' }, { kind: 'child' }, { kind: 'root' }],
    presetTools: "a preset's tools are added to each child composed from it as scope-local "
      + 'tools, after its filter',
  });
}

/**
 * The driver API over HTTP. What is behind it is this implementation unless given: `info()`
 * answers GET /v1/info, `open(config, gateway)` (may be async) makes a deployment, whose
 * `close()` ends it, and `operations` maps each operation segment to `{args, handler}`
 * (arguments.mjs reads the arguments). The DSH adapter serves DSH this way.
 */
export class DriverServer {
  #deployments = new Map();
  #count = 0;

  constructor({ modelTimeoutMs = 120000, info = targetInfo,
    open = (config, gateway) => new Deployment(config, gateway), operations = OPERATIONS } = {}) {
    this.modelTimeoutMs = modelTimeoutMs;
    this.info = info;
    this.open = open;
    this.operations = operations;
    this.server = http.createServer((request, response) => {
      this.#handle(request, response).catch((error) => {
        send(response, 500, { code: Code.PROTOCOL_ERROR,
          message: `the runtime crashed: ${error?.stack ?? error}` });
      });
    });
    this.server.keepAliveTimeout = 30000;
  }

  listen(port = 0, host = '127.0.0.1') {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        const { port: bound } = this.server.address();
        resolve(`http://${host}:${bound}`);
      });
    });
  }

  close() {
    for (const deployment of this.#deployments.values()) deployment.close();
    this.#deployments.clear();
    this.server.closeAllConnections?.();
    return new Promise((resolve) => { this.server.close(() => resolve()); });
  }

  async #handle(request, response) {
    const url = new URL(request.url, 'http://localhost');
    try {
      const parts = segments(url.pathname);
      if (parts[0] !== 'v1') throw notARoute(request, url);
      if (parts.length === 2 && parts[1] === 'info') {
        requireMethod(request, url, 'GET');
        return send(response, 200, this.info());
      }
      if (parts[1] !== 'deployments' || parts.length > 4) throw notARoute(request, url);
      if (parts.length === 2) {
        requireMethod(request, url, 'POST');
        return send(response, 201, await this.#deploy(await readBody(request)));
      }
      const ident = parts[2];
      if (parts.length === 3) {
        requireMethod(request, url, 'DELETE');
        this.#deployment(ident);
        this.#deployments.get(ident).close();
        this.#deployments.delete(ident);
        return send(response, 200, null);
      }
      requireMethod(request, url, 'POST');
      if (parts[3] === 'batch') {
        const calls = batchCalls(await readBody(request));
        return send(response, 200, await this.#batch(this.#deployment(ident), calls));
      }
      const operation = this.#operation(parts[3]);
      const deployment = this.#deployment(ident);
      const body = await readBody(request);
      return send(response, 200, await this.#run(deployment, parts[3], operation,
        body === EMPTY ? {} : body));
    } catch (error) {
      if (error instanceof TckError) {
        return send(response, error.status ?? statusOf(error.code), errorBody(error));
      }
      throw error;
    }
  }

  #operation(segment) {
    const { operations } = this;
    const operation = Object.hasOwn(operations, segment) ? operations[segment] : undefined;
    if (operation === undefined) {
      throw new TckError(Code.PROTOCOL_ERROR, `there is no operation ${segment} in driver `
        + `protocol ${PROTOCOL_VERSION}`, { operation: segment });
    }
    return operation;
  }

  async #run(deployment, segment, operation, body) {
    const args = decodeArguments(segment, operation, body);
    const result = await operation.handler(deployment, args);
    return result === undefined ? null : result;
  }

  /** Each call in order, answered as it would be alone: a refusal or a crash of one is its
   * entry, and the next call runs (docs/driver-api.md#batch). */
  async #batch(deployment, calls) {
    const results = [];
    for (const { operation: segment, arguments: body } of calls) {
      try {
        results.push({ result: await this.#run(deployment, segment, this.#operation(segment),
          body) });
      } catch (error) {
        results.push({ error: error instanceof TckError ? errorBody(error)
          : { code: Code.PROTOCOL_ERROR, message: `the runtime crashed: ${error?.stack ?? error}`,
            details: {} } });
      }
    }
    return { results };
  }

  #deployment(ident) {
    const deployment = this.#deployments.get(ident);
    if (deployment === undefined) {
      throw new TckError(Code.PROTOCOL_ERROR, `there is no open deployment ${JSON.stringify(ident)}: `
        + 'create one with POST /v1/deployments');
    }
    return deployment;
  }

  async #deploy(body) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new TckError(Code.INVALID_REQUEST, 'the body of POST /v1/deployments must be a JSON '
        + 'object: a DeploymentConfig with "gatewayUrl"');
    }
    const { gatewayUrl, ...config } = body;
    if (typeof gatewayUrl !== 'string' || !/^https?:\/\//.test(gatewayUrl)) {
      throw new TckError(Code.INVALID_REQUEST, '"gatewayUrl" must be the model gateway\'s http:// '
        + 'base URL');
    }
    this.#count += 1;
    const ident = `d${this.#count}`;
    const gateway = new GatewayClient(gatewayUrl, { timeoutMs: this.modelTimeoutMs });
    let deployment;
    try {
      deployment = await this.open(config, gateway);
    } catch (error) {
      gateway.close();
      throw error;
    }
    this.#deployments.set(ident, deployment);
    return { deployment: ident };
  }
}

/** The calls of a batch body; anything but {calls: [{operation, arguments?}, ...]} is refused
 * whole, before any call runs. */
function batchCalls(body) {
  const calls = body !== null && typeof body === 'object' && !Array.isArray(body)
    && Object.keys(body).length === 1 ? body.calls : undefined;
  if (!Array.isArray(calls)) {
    throw new TckError(Code.INVALID_REQUEST, 'the body of batch must be {"calls": '
      + '[{"operation": "<segment>", "arguments": {...}}, ...]}');
  }
  if (calls.length > MAX_BATCH) {
    throw new TckError(Code.INVALID_REQUEST, `a batch carries at most ${MAX_BATCH} calls, not `
      + `${calls.length}: send several`);
  }
  return calls.map((call, index) => {
    if (call === null || typeof call !== 'object' || Array.isArray(call)
        || typeof call.operation !== 'string'
        || Object.keys(call).some((key) => key !== 'operation' && key !== 'arguments')) {
      throw new TckError(Code.INVALID_REQUEST, `call ${index} of the batch is not `
        + '{"operation": "<segment>", "arguments": {...}}');
    }
    return { operation: call.operation, arguments: Object.hasOwn(call, 'arguments')
      ? call.arguments : {} };
  });
}

function segments(pathname) {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new TckError(Code.PROTOCOL_ERROR, `${pathname} is not a well-formed path`);
  }
}

function notARoute(request, url) {
  return new TckError(Code.PROTOCOL_ERROR, `${request.method} ${url.pathname} is not a route of `
    + `driver protocol ${PROTOCOL_VERSION}: see docs/driver-api.md`);
}

function requireMethod(request, url, method) {
  if (request.method !== method) {
    const error = notARoute(request, url);
    error.status = 405;
    throw error;
  }
}

async function readBody(request) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > MAX_BODY) {
      throw new TckError(Code.INVALID_REQUEST, `the request body is larger than ${MAX_BODY} bytes`);
    }
    chunks.push(chunk);
  }
  const data = Buffer.concat(chunks);
  if (data.toString('utf8').trim() === '') return EMPTY;
  try {
    return loads(data);
  } catch (error) {
    if (error instanceof Malformed) {
      throw new TckError(Code.INVALID_REQUEST, `the request body is not standard JSON: ${error.message}`);
    }
    throw error;
  }
}

function send(response, status, value) {
  if (response.headersSent) return;
  const body = Buffer.from(dumps(value), 'utf8');
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': body.length,
    [VERSION_HEADER]: PROTOCOL_VERSION,
  });
  response.end(body);
}
