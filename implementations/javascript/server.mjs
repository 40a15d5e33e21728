#!/usr/bin/env node
// subagent-tck-js: the JavaScript runtime behind the subagent-tck HTTP driver API.
//
//   node implementations/javascript/server.mjs [--port N] [--host 127.0.0.1]
//                                              [--model-timeout SECONDS] [--exit-on-stdin-close]
//
// The first stdout line is the cmd: handshake, "SUBAGENT_TCK_READY http://127.0.0.1:PORT".
// SIGINT/SIGTERM (or stdin closing, with --exit-on-stdin-close) stop it.

import { ADDRESS, MODEL_TIMEOUT, SEE_HELP, help, readArguments } from './arguments.mjs';
import { DriverServer, PROTOCOL_VERSION } from './src/server.mjs';

function parse(argv) {
  const options = readArguments(argv,
    { port: 0, host: '127.0.0.1', modelTimeout: 120, exitOnStdinClose: false }, {
      ...ADDRESS,
      ...MODEL_TIMEOUT,
      '--exit-on-stdin-close': (o) => { o.exitOnStdinClose = true; },
      ...help('usage: server.mjs [--port N] [--host 127.0.0.1] '
        + '[--model-timeout S] [--exit-on-stdin-close]\n'),
    }, SEE_HELP);
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    process.stderr.write(`--port must be 0..65535, not ${options.port}\n`);
    process.exit(2);
  }
  if (!(options.modelTimeout > 0)) {
    process.stderr.write('--model-timeout must be a positive number of seconds\n');
    process.exit(2);
  }
  return options;
}

const options = parse(process.argv.slice(2));
const driver = new DriverServer({ modelTimeoutMs: options.modelTimeout * 1000 });
const url = await driver.listen(options.port, options.host);
process.stdout.write(`SUBAGENT_TCK_READY ${url}\n`);
process.stderr.write(`subagent-tck-js serving driver protocol ${PROTOCOL_VERSION} on ${url}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await driver.close();
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
if (options.exitOnStdinClose) {
  process.stdin.on('end', stop);
  process.stdin.resume();
}
