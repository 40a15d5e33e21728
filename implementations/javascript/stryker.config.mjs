// StrykerJS over src/, with one `subagent-tck certify --target 'cmd:node server.mjs'` as the
// test of every mutant (benchmarks/README.md, "StrykerJS").
//
//   cd implementations/javascript && npm install
//   PYTHON=../../.venv/bin/python nice -n 15 npx stryker run            # every mutant: hours
//   python ../../benchmarks/stryker_sample.py --sample 8 --seed 0       # a seeded sample
//
// A mutant is killed when certify exits non-zero or prints no "verdict: CERTIFIED"
// (benchmarks/certify_probe.py), or overruns Stryker's timeout (reported apart as Timeout).
import { fileURLToPath } from 'node:url';

const probe = fileURLToPath(new URL('../../benchmarks/certify_probe.py', import.meta.url));
const python = process.env.PYTHON || 'python3';
const seed = process.env.SUBAGENT_TCK_SEED || '0';

export default {
  testRunner: 'command',
  commandRunner: {
    command: `"${python}" "${probe}" certify --target "cmd:node server.mjs" --seed ${seed}`,
  },
  mutate: ['src/**/*.mjs'],
  coverageAnalysis: 'off', // the command runner cannot tell which test covers which mutant
  concurrency: 1, // one certify at a time: the machine is shared
  timeoutMS: 60000,
  timeoutFactor: 3,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
