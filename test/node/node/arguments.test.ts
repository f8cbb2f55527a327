/**
 * The gateway's command line (src/node/arguments.ts), in process: `--help` and `-h` print the usage and
 * exit 0, anything but `--check` exits 2 naming it, and `--check` is the check. `process.exit` and
 * `console.error` are replaced by spies for each test.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readArguments, USAGE } from '../../../src/node/arguments';

class Exited extends Error {
  constructor(readonly code: number | string | null | undefined) {
    super(`exit ${code}`);
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** What `readArguments(argv)` printed, and the exit code it asked for (undefined when it returned). */
function read(argv: string[]): { printed: string[]; code: number | string | null | undefined; result?: { check: boolean } } {
  const printed: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Exited(code);
  });
  try {
    return { printed, code: undefined, result: readArguments(argv) };
  } catch (err) {
    if (err instanceof Exited) return { printed, code: err.code };
    throw err;
  }
}

describe('the command line', () => {
  it('serves with no arguments', () => {
    expect(read([])).toEqual({ printed: [], code: undefined, result: { check: false } });
  });

  it('checks with --check', () => {
    expect(read(['--check'])).toEqual({ printed: [], code: undefined, result: { check: true } });
  });

  it.each([['--help'], ['-h'], ['--check', '--help'], ['--nonsense', '-h']])('prints the usage and exits 0 for %s', (...argv) => {
    expect(read(argv)).toEqual({ printed: [USAGE], code: 0 });
  });

  it('says what it does in the usage: both commands and the signals', () => {
    expect(USAGE).toMatch(/^usage: npm start /);
    expect(USAGE).toContain('npm run check');
    expect(USAGE).toContain('SIGHUP reads CREDENTIALS_FILE again');
  });

  it.each([['--port=8080'], ['check'], ['--check', 'extra']])('exits 2 naming the first argument it does not take: %s', (...argv) => {
    const unknown = argv.find((a) => a !== '--check');
    expect(read(argv)).toEqual({
      printed: [`${JSON.stringify(unknown)} is not an option: the gateway takes only --check (validate and print the start-up summary without listening)`],
      code: 2,
    });
  });
});
