/** What `--help` prints (`npm start -- --help`, `npm run check -- --help`, `node dist/node.js --help`). */
export const USAGE = `usage: npm start                 (node dist/node.js)          serve, configured by the environment (README, Configuration)
       npm run check             (node dist/node.js --check)  validate the configuration, the credential file and the dataset
                                                              as start-up would, print the start-up summary, exit 0 or 1; listens on nothing
Signals: SIGTERM or SIGINT drain and stop; SIGHUP reads CREDENTIALS_FILE again. Send them to the gateway's
pid (the "pid" of its "gateway listening" line), not to npm.`;

/**
 * The command line: `--help` prints the usage and exits 0; anything but `--check` exits 2 naming
 * it. Returns whether this is the check (`npm run check`).
 */
export function readArguments(argv: readonly string[]): { check: boolean } {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.error(USAGE);
    process.exit(0);
  }
  const unknown = argv.find((arg) => arg !== '--check');
  if (unknown !== undefined) {
    console.error(`${JSON.stringify(unknown)} is not an option: the gateway takes only --check (validate and print the start-up summary without listening)`);
    process.exit(2);
  }
  return { check: argv.includes('--check') };
}
