import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { FROM_SOURCES, gatewayListening, type Started, startProcess } from '../../tools/processes';
import type { DocCommand } from './markdown';

export interface RunOutcome {
  ok: boolean;
  detail: string;
  /** The command ended the shell (an unset variable, `exit`). */
  stopped?: boolean;
}

/** How long one file's commands may take together. */
const FILE_TIMEOUT_MS = 90_000;
/**
 * What the repository gives a scratch copy: the sources are linked, so documented relative paths
 * land in the scratch directory. `dist/` too, where `npm run check` finds what its `precheck`
 * (scripts/build.mjs, which resolves the repository through the link) built.
 */
const LINKED = ['node_modules', 'src', 'scripts', 'fixtures', 'generated', 'dist', 'tsconfig.json'];

/** The environment of a fresh shell: none of npm's variables, none of the gateway's own settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const gatewayVars = /^(PORT|HOST|CREDENTIALS_FILE|REDIS_URL|UPSTREAM_URL|UPSTREAM_AUTHORIZATION|LEGACY_V1_URL|TOKEN_SIGNING_SECRET|INIT_CWD)$/;
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name) && !gatewayVars.test(name)) env[name] = value;
  return { ...env, ...extra };
}

interface Gateway {
  port: number;
  lines: string[];
}

/**
 * The gateways the documented commands talk to, each `src/node.ts` on a free loopback port: the
 * demo one (bundled data, demo credentials) for `localhost:8787`, and one per distinct
 * `NAME=value npm start` the docs show, with those settings.
 */
export class DocsGateways {
  private readonly started = new Map<string, Promise<Gateway>>();
  private readonly running: Started<unknown>[] = [];

  constructor(private readonly root: string) {}

  start(settings: Record<string, string> = {}): Promise<Gateway> {
    const key = JSON.stringify(settings);
    let gateway = this.started.get(key);
    if (!gateway) {
      gateway = this.spawn(settings);
      this.started.set(key, gateway);
    }
    return gateway;
  }

  /** What the demo gateway has logged so far (none if it was not needed yet). */
  async demoLines(): Promise<string[]> {
    return this.started.has('{}') ? (await this.start()).lines : [];
  }

  stop(): void {
    for (const gateway of this.running) void gateway.stop();
  }

  private async spawn(settings: Record<string, string>): Promise<Gateway> {
    const gateway = await startProcess({
      command: process.execPath,
      args: FROM_SOURCES.slice(1),
      cwd: this.root,
      baseEnv: cleanEnv({}),
      env: { ...settings, PORT: '0', HOST: '127.0.0.1' },
      ready: gatewayListening,
      earlyExit: 'resolve',
    });
    this.running.push(gateway);
    if (!gateway.ready) {
      const { lines, exit } = gateway;
      throw new Error(`exited ${exit?.code}: ${lines.find((l) => !l.startsWith('{')) ?? lines.at(-1) ?? ''}`);
    }
    return { port: gateway.ready.port, lines: gateway.lines };
  }
}

/** A runnable command, or one that starts a gateway with these settings. */
export interface RunnableCommand {
  command: DocCommand;
  start?: Record<string, string>;
}

const LOOPBACK = /(localhost|127\.0\.0\.1):(\d+)/g;

/**
 * Where each command's `localhost:<port>` goes: in a block that starts a gateway (`PORT=8788 npm
 * start`), its port is that gateway from then on; `8787` is otherwise the demo gateway.
 */
async function wire(commands: RunnableCommand[], gateways: DocsGateways): Promise<Array<{ text: string; outcome?: RunOutcome }>> {
  const wired: Array<{ text: string; outcome?: RunOutcome }> = [];
  let block = -1;
  let ports = new Map<string, number>();
  const toReal = async (text: string) => {
    let out = text;
    for (const [whole, , port] of text.matchAll(LOOPBACK)) {
      const real = ports.get(port!) ?? (port === '8787' ? (await gateways.start()).port : undefined);
      if (real !== undefined) out = out.replace(whole, `127.0.0.1:${real}`);
    }
    return out;
  };
  for (const { command, start } of commands) {
    if (command.block !== block) [block, ports] = [command.block, new Map()];
    if (!start) {
      wired.push({ text: await toReal(command.text) });
      continue;
    }
    const settings: Record<string, string> = {};
    for (const [name, value] of Object.entries(start)) if (name !== 'PORT') settings[name] = await toReal(value);
    try {
      const { port } = await gateways.start(settings);
      ports.set(start.PORT ?? '8787', port);
      wired.push({ text: ':', outcome: { ok: true, detail: `(a gateway with these settings, on port ${port})` } });
    } catch (err) {
      wired.push({ text: ':', outcome: { ok: false, detail: `the gateway ${(err as Error).message}` } });
    }
  }
  return wired;
}

/**
 * Runs one file's runnable commands in order in one bash (so a variable set by one is seen by the
 * next), in a scratch copy of the repository, with `set -u`: an unset variable is a failure, and
 * so is any member of a pipeline that fails (see pipelineStatus). curl reports each status through
 * a `.curlrc`, so the commands run as written; a status must be 2xx or 3xx, or the one a
 * `# HTTP/1.1 <status>` comment under the command announces.
 */
export async function runCommands(root: string, commands: RunnableCommand[], gateways: DocsGateways): Promise<RunOutcome[]> {
  if (commands.length === 0) return [];
  const scratch = mkdtempSync(join(tmpdir(), 'check-docs-'));
  try {
    mkdirSync(join(root, 'dist'), { recursive: true });
    for (const name of LINKED) if (existsSync(join(root, name))) symlinkSync(join(root, name), join(scratch, name));
    copyFileSync(join(root, 'package.json'), join(scratch, 'package.json'));
    mkdirSync(join(scratch, '.curl'));
    writeFileSync(join(scratch, '.curl', '.curlrc'), 'write-out = "%{stderr}__CHECK_DOCS_STATUS__ %{http_code}\\n"\nmax-time = 20\n');
    const wired = await wire(commands, gateways);
    // A sample log for the report commands: the demo gateway's own lines, under the names the docs use.
    const log = `${(await gateways.demoLines()).filter((l) => l.startsWith('{')).join('\n')}\n`;
    for (const name of ['gateway.log', 'gateway.log.1', 'gateway-1.log']) writeFileSync(join(scratch, name), log);
    writeFileSync(join(scratch, 'old.log.gz'), gzipSync(log));

    const results: RunOutcome[] = [];
    // A command that stops the shell is a failure; the commands after it run in a fresh shell.
    while (results.length < commands.length) {
      const from = results.length;
      const rest = wired.slice(from);
      const script = [
        'set -u',
        '__mark() { printf \'\\n__CHECK_DOCS__ %s\\n\' "$*" >&2; }',
        ...rest.flatMap((c, i) => [`__mark begin ${i}`, c.text, `__mark end ${i} "\${PIPESTATUS[*]}"`]),
      ].join('\n');
      writeFileSync(join(scratch, '.check-docs.sh'), script);
      const batch = outcomes(
        commands.slice(from).map((c) => c.command.expect),
        await runBash(scratch, join(scratch, '.check-docs.sh')),
      );
      const stopped = batch.findIndex((o) => o.stopped);
      results.push(...(stopped === -1 ? batch : batch.slice(0, stopped + 1)));
    }
    return results.map((r, i) => wired[i]!.outcome ?? r);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runBash(cwd: string, file: string): Promise<string[]> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', file], {
      cwd,
      env: cleanEnv({ CURL_HOME: join(cwd, '.curl') }),
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
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

function outcomes(expected: Array<string | undefined>, stderr: string[]): RunOutcome[] {
  const seen = expected.map(() => ({ begun: false, rc: undefined as number | undefined, statuses: [] as string[], errors: [] as string[] }));
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
  return seen.map(({ begun, rc, statuses, errors }, i) => {
    // The line that says what went wrong, rather than a stack's last line.
    const last = (errors.find((e) => /error|unbound|not found|no such|invalid|denied|refused/i.test(e)) ?? errors.at(-1) ?? '').slice(0, 240);
    const http = statuses.length ? ` (HTTP ${statuses.join(', ')})` : '';
    if (!begun) return { ok: false, detail: 'not run' };
    if (rc === undefined) return { ok: false, stopped: true, detail: `stopped the shell: ${last}` };
    if (rc !== 0) return { ok: false, detail: `exit ${rc}${http}: ${last}` };
    const expect = expected[i];
    const bad = statuses.filter((s) => (expect ? s !== expect : !/^[23]\d\d$/.test(s)));
    if (bad.length) return { ok: false, detail: `HTTP ${bad.join(', ')}${expect ? `, not the ${expect} its comment announces` : ''}` };
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
