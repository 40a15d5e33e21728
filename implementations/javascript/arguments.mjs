// The command line of a driver-API server: this implementation's (server.mjs), the roster
// example's (examples/roster/js/server.mjs) and the DSH adapter's (adapters/dsh/server.mjs).
// Each flag is `--flag VALUE` or `--flag=VALUE`, read by its handler. Outside src/: the
// mutation runs (stryker.config.mjs) judge the runtime, not its command line.

/** `argv` read into `options` (the defaults, changed in place and returned): each flag of
 * `flags` is a handler of the options and of a function that gives the flag's value. An
 * argument no flag names is written to stderr as `unknown(argument)` words it; exit 2. */
export function readArguments(argv, options, flags, unknown) {
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    if (!Object.hasOwn(flags, flag)) {
      process.stderr.write(unknown(argv[i]));
      process.exit(2);
    }
    flags[flag](options, value);
  }
  return options;
}

/** Where the server listens: --port N, --host ADDRESS. */
export const ADDRESS = {
  '--port': (options, value) => { options.port = Number(value()); },
  '--host': (options, value) => { options.host = value(); },
};

/** How long a model request may take: --model-timeout SECONDS. */
export const MODEL_TIMEOUT = {
  '--model-timeout': (options, value) => { options.modelTimeout = Number(value()); },
};

/** -h and --help: `usage` on stdout, exit 0. */
export function help(usage) {
  const show = () => {
    process.stdout.write(usage);
    process.exit(0);
  };
  return { '-h': show, '--help': show };
}

/** An unknown argument, for a server that has --help. */
export const SEE_HELP = (argument) => `unknown argument ${argument}: see --help\n`;
