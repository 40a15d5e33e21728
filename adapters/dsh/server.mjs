#!/usr/bin/env node
// The DSH adapter for subagent-tck: the kit's HTTP driver API around the published DSH
// packages (package.json pins them). See README.md.
//
//   node adapters/dsh/server.mjs [--port N] [--host 127.0.0.1] [--model-timeout SECONDS]
//                                [--provider-module PATH ...] [--continuable]
//
// DSH 0.1.x needs Node 22 (it calls Promise.withResolvers). Under an older node this
// entry re-runs itself with the Node 22 binary that `npm ci` installs from the npm registry
// (the `node` package), in the same process group, so the kit's cmd: cleanup still reaches it.
// The first stdout line is the handshake `SUBAGENT_TCK_READY http://127.0.0.1:PORT`.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { ADDRESS, MODEL_TIMEOUT, SEE_HELP, help, readArguments }
  from '../../implementations/javascript/arguments.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE22 = join(HERE, 'node_modules', 'node', 'bin', 'node');

if (Number(process.versions.node.split('.')[0]) < 22) {
  if (!existsSync(NODE22)) {
    process.stderr.write(`DSH needs Node >= 22 and ${NODE22} is missing: run `
      + '`cd adapters/dsh && npm ci`\n');
    process.exit(2);
  }
  const child = spawn(NODE22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main(process.argv.slice(2));
}

function parse(argv) {
  return readArguments(argv, { port: 0, host: '127.0.0.1', modelTimeout: 120, providerModules: [] }, {
    ...ADDRESS,
    ...MODEL_TIMEOUT,
    '--provider-module': (o, value) => { o.providerModules.push(value()); },
    '--continuable': (o) => { o.continuable = true; },
    ...help('usage: server.mjs [--port N] [--host 127.0.0.1] '
      + '[--model-timeout S] [--provider-module PATH ...] [--continuable]\n'),
  }, SEE_HELP);
}

async function main(argv) {
  const options = parse(argv);
  const { EXTRA_PROVIDERS, DshHost } = await import('./src/dsh_host.mjs');
  const { DriverServer, PROTOCOL_VERSION } = await import('./src/server.mjs');
  const { providerInfos } = await import('./src/providers.mjs');
  // --continuable: the kit's start, run-turn of a child and resume take DSH's continuable path
  (await import('./src/continuable.mjs')).PATH.continuable = options.continuable === true;
  for (const path of options.providerModules) {
    // A DSH provider plugin: a module with apply(ctx, config) (and optional inject/name/Config),
    // exactly what DSH's own spawn/fork packages export. Loaded into every deployment.
    EXTRA_PROVIDERS.push(await import(pathToFileURL(resolve(path)).href));
  }
  const probe = new DshHost({ persona: null, mode: 'native', variables: {}, sections: [],
    tools: [] }, null);
  await probe.boot();
  const providers = providerInfos(probe.ctx);
  probe.close();
  const { DSH_VERSION: version } = await import('./src/version.mjs');
  const driver = new DriverServer({ modelTimeoutMs: options.modelTimeout * 1000, providers,
    dshVersion: version });
  const url = await driver.listen(options.port, options.host);
  process.stdout.write(`SUBAGENT_TCK_READY ${url}\n`);
  process.stderr.write(`DSH ${version} adapter serving driver protocol ${PROTOCOL_VERSION} on ${url}\n`);
  const stop = async () => { await driver.close(); process.exit(0); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
