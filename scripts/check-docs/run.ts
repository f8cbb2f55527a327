import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import type { DocCommand } from './markdown';

export interface RunOutcome {
  ok: boolean;
  detail: string;
  /** The command ended the shell (an unset variable, `exit`). */
  stopped?: boolean;
}

/** How long one file's commands may take together. */
const FILE_TIMEOUT_MS = 90_000;
/** What the repository gives a scratch copy: the sources are linked, so documented relative paths land in the scratch directory. */
const LINKED = ['node_modules', 'src', 'scripts', 'fixtures', 'generated', 'tsconfig.json'];

/** The environment of a fresh shell: none of npm's variables, none of the gateway's own settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const gatewayVars = /^(PORT|HOST|CREDENTIALS_FILE|REDIS_URL|UPSTREAM_URL|UPSTREAM_AUTHORIZATION|LEGACY_V1_URL|TOKEN_SIGNING_SECRET|INIT_CWD)$/;
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name) && !gatewayVars.test(name)) env[name] = value;
  return { ...env, ...extra };
}

/** The demo gateway (`src/node.ts`, bundled data, demo credentials) the documented curl commands talk to. */
export class DocsGateway {
  readonly lines: string[] = [];
  private child: ChildProcess | undefined;
  private port: Promise<number> | undefined;

  constructor(private readonly root: string) {}

  start(): Promise<number> {
    return (this.port ??= new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/node.ts'], { cwd: this.root, env: cleanEnv({ PORT: '0', HOST: '127.0.0.1' }), stdio: ['ignore', 'pipe', 'pipe'] });
      this.child = child;
      const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${this.lines.join('\n')}`)), 30_000);
      createInterface({ input: child.stderr! }).on('line', (line) => this.lines.push(line));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        this.lines.push(line);
        if (line.includes('gateway listening')) {
          clearTimeout(timer);
          resolve(JSON.parse(line).port);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the gateway exited ${code}: ${this.lines.join('\n')}`));
      });
    }));
  }

  stop(): void {
    this.child?.kill('SIGKILL');
  }
}

/**
 * Runs one file's runnable commands in order in one bash (so a variable set by one is seen by the
 * next), in a scratch copy of the repository, with `set -u`: an unset variable is a failure, and
 * so is any member of a pipeline that fails (see pipelineStatus). `localhost:8787` is the checker's gateway; curl reports each
 * status through a `.curlrc`, so the commands run as written.
 */
export async function runCommands(root: string, commands: DocCommand[], gateway: DocsGateway): Promise<RunOutcome[]> {
  if (commands.length === 0) return [];
  const scratch = mkdtempSync(join(tmpdir(), 'check-docs-'));
  try {
    for (const name of LINKED) if (existsSync(join(root, name))) symlinkSync(join(root, name), join(scratch, name));
    copyFileSync(join(root, 'package.json'), join(scratch, 'package.json'));
    mkdirSync(join(scratch, '.curl'));
    writeFileSync(join(scratch, '.curl', '.curlrc'), 'write-out = "%{stderr}__CHECK_DOCS_STATUS__ %{http_code}\\n"\nmax-time = 20\n');
    const needsGateway = commands.some((c) => /(localhost|127\.0\.0\.1):8787/.test(c.text));
    const port = needsGateway ? await gateway.start() : 8787;
    // A sample log for the report commands: the gateway's own lines, under the names the docs use.
    const log = `${gateway.lines.filter((l) => l.startsWith('{')).join('\n')}\n`;
    for (const name of ['gateway.log', 'gateway.log.1', 'gateway-1.log']) writeFileSync(join(scratch, name), log);
    writeFileSync(join(scratch, 'old.log.gz'), gzipSync(log));

    const results: RunOutcome[] = [];
    // A command that stops the shell is a failure; the commands after it run in a fresh shell.
    while (results.length < commands.length) {
      const rest = commands.slice(results.length);
      const script = [
        'set -u',
        "__mark() { printf '\\n__CHECK_DOCS__ %s\\n' \"$*\" >&2; }",
        ...rest.flatMap((c, i) => [`__mark begin ${i}`, c.text.replace(/(localhost|127\.0\.0\.1):8787/g, `127.0.0.1:${port}`), `__mark end ${i} "\${PIPESTATUS[*]}"`]),
      ].join('\n');
      writeFileSync(join(scratch, '.check-docs.sh'), script);
      const batch = outcomes(rest.length, await runBash(scratch, join(scratch, '.check-docs.sh')));
      const stopped = batch.findIndex((o) => o.stopped);
      results.push(...(stopped === -1 ? batch : batch.slice(0, stopped + 1)));
    }
    return results;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runBash(cwd: string, file: string): Promise<string[]> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', file], { cwd, env: cleanEnv({ CURL_HOME: join(cwd, '.curl') }), stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    const lines: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
    const timer = setTimeout(() => {
      lines.push(`timed out after ${FILE_TIMEOUT_MS / 1000} s`);
      process.kill(-child.pid!, 'SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.once('close', () => {
      clearTimeout(timer);
      resolve(lines);
    });
  });
}

function outcomes(count: number, stderr: string[]): RunOutcome[] {
  const seen = Array.from({ length: count }, () => ({ begun: false, rc: undefined as number | undefined, statuses: [] as string[], errors: [] as string[] }));
  let current: (typeof seen)[number] | undefined;
  for (const line of stderr) {
    const mark = /^__CHECK_DOCS__ (begin|end) (\d+)(?: ([\d ]+))?$/.exec(line);
    const status = /^__CHECK_DOCS_STATUS__ (\d+)$/.exec(line);
    if (mark) {
      current = seen[Number(mark[2])];
      if (mark[1] === 'begin') current!.begun = true;
      else current!.rc = pipelineStatus(mark[3]!.split(' ').map(Number));
    } else if (status) current?.statuses.push(status[1]!);
    else if (line.trim() && !/^npm warn/i.test(line)) current?.errors.push(line.trim());
  }
  return seen.map(({ begun, rc, statuses, errors }) => {
    // The line that says what went wrong, rather than a stack's last line.
    const last = (errors.find((e) => /error|unbound|not found|no such|invalid|denied|refused/i.test(e)) ?? errors.at(-1) ?? '').slice(0, 240);
    const http = statuses.length ? ` (HTTP ${statuses.join(', ')})` : '';
    if (!begun) return { ok: false, detail: 'not run' };
    if (rc === undefined) return { ok: false, stopped: true, detail: `stopped the shell: ${last}` };
    if (rc !== 0) return { ok: false, detail: `exit ${rc}${http}: ${last}` };
    const bad = statuses.filter((s) => !/^[23]\d\d$/.test(s));
    if (bad.length) return { ok: false, detail: `HTTP ${bad.join(', ')}` };
    return { ok: true, detail: http };
  });
}

/**
 * A pipeline's status from every member's: the first failure, except that a member before the last
 * may have been cut off by a reader that had enough (`curl ... | head`): SIGPIPE (141), or curl's
 * write error (23).
 */
export function pipelineStatus(statuses: number[]): number {
  const cutOff = (s: number, i: number) => i < statuses.length - 1 && (s === 141 || s === 23);
  return statuses.find((s, i) => s !== 0 && !cutOff(s, i)) ?? 0;
}
