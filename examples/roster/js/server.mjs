#!/usr/bin/env node
// The JavaScript implementation with the roster loaded, behind the HTTP driver API:
//
//   subagent-tck promises --target 'cmd:node examples/roster/js/server.mjs' \
//       examples/roster/promises.toml
//
// --mode advisory|strict (default strict) validates the roster at load. --variant NAME loads a
// broken roster (in advisory mode), the same four as examples/roster/broken.py.

import { ADDRESS, readArguments } from '../../../implementations/javascript/arguments.mjs';
import { DriverServer } from '../../../implementations/javascript/src/server.mjs';
import { Deployment } from '../../../implementations/javascript/src/deployment.mjs';
import { delegateTool, loadRoster, requestFor, validate } from './roster.mjs';
import { VARIANTS } from './variants.mjs';

function parse(argv) {
  const options = readArguments(argv, { port: 0, host: '127.0.0.1', mode: 'strict', variant: null }, {
    ...ADDRESS,
    '--mode': (o, value) => { o.mode = value(); },
    '--variant': (o, value) => { o.variant = value(); },
  }, (argument) => `unknown argument ${argument}: use --port, --host, --mode, --variant\n`);
  if (options.variant !== null && !(options.variant in VARIANTS)) {
    process.stderr.write(`unknown --variant ${options.variant}: use ${Object.keys(VARIANTS).join(', ')}\n`);
    process.exit(2);
  }
  return options;
}

const options = parse(process.argv.slice(2));
const variant = options.variant === null ? {} : VARIANTS[options.variant]();
const roster = variant.roster ?? loadRoster();
try {
  validate(roster, variant.mode ?? options.mode);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}
const driver = new DriverServer({
  open: (config, gateway) => {
    const deployment = new Deployment(config, gateway);
    deployment.host.registry.register(delegateTool(deployment.host, roster,
      { request: variant.request ?? requestFor }));
    return deployment;
  },
});
const url = await driver.listen(options.port, options.host);
process.stdout.write(`SUBAGENT_TCK_READY ${url}\n`);
const stop = async () => { await driver.close(); process.exit(0); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
