import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ONLINE_MARKER, type DocCommand } from './markdown';
import { segments, type Segment } from './shell';

/**
 * What the checker does with a documented command:
 * - `run`: it runs, in a scratch copy of the repository, against a gateway the checker started;
 * - `static`: only checked (scripts, tools and paths exist): long-running or heavy (`npm start`, `npm test`);
 * - `start`: `[NAME=value ...] npm start` alone: the checker starts a gateway with those settings
 *   for the block's later commands (their `localhost:<PORT>` is that gateway);
 * - `online`: in a block marked ```sh online, skipped visibly.
 */
export type Verdict = 'run' | 'static' | 'start' | 'online';

export interface Classified {
  verdict: Verdict;
  /** Problems found without running anything: each one a failure. */
  problems: string[];
}

export interface Repository {
  root: string;
  scripts: Record<string, string>;
}

/** npm scripts whose documented commands run here: quick, offline, writing only the files they name (`check` writes none). */
const RUNNABLE_SCRIPTS = new Set(['ops:credentials', 'ops:kv-credentials', 'ops:report', 'check']);
/** Tools run through npx that the checker runs (against its own gateway). */
const RUNNABLE_TOOLS = new Set(['openapi-typescript']);
/** Programs that only read, print or transform text. */
const NEUTRAL = new Set([
  'jq',
  'head',
  'tail',
  'grep',
  'printf',
  'echo',
  'cat',
  'zcat',
  'gzip',
  'sha256sum',
  'wc',
  'sort',
  'cut',
  'base64',
  'export',
  'test',
  '[',
]);
/** Folders of the repository: a word starting with one of them is a path that must exist. */
export const SOURCE_FOLDERS = ['src', 'scripts', 'docs', 'test', 'bench', 'fixtures', 'deploy', '.ci'];
const LOCAL_URL = /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/|$)/;
const ONLINE_WRANGLER = /^(deploy|secret|login|logout|tail|whoami|kv namespace|kv key put|d1|r2)/;

export function classify(command: DocCommand, repo: Repository): Classified {
  const problems: string[] = [];
  const parts = segments(command.text);
  const kinds = parts.map((segment) => segmentKind(segment, repo, problems));
  for (const segment of parts) {
    for (const word of [...segment.assignments.map((a) => a.slice(a.indexOf('=') + 1)), ...segment.words]) {
      for (const path of namedPaths(word)) if (!existsSync(join(repo.root, path))) problems.push(`${path} does not exist`);
      if (/^https?:\/\//.test(word) && !LOCAL_URL.test(word)) kinds.push('online');
    }
  }
  if (!command.online && kinds.includes('online')) problems.push(`needs the network or a Cloudflare account: mark its block \`\`\`sh ${ONLINE_MARKER}`);
  const starts = parts.length === 1 && parts[0]!.words.join(' ') === 'npm start';
  const verdict: Verdict = command.online ? 'online' : starts ? 'start' : kinds.every((k) => k === 'run' || k === 'neutral') ? 'run' : 'static';
  return { verdict, problems: [...new Set(problems)] };
}

type SegmentKind = 'run' | 'neutral' | 'static' | 'online';

function segmentKind({ words }: Segment, repo: Repository, problems: string[]): SegmentKind {
  const [program, ...args] = words;
  if (program === undefined) return 'neutral';
  const operands = args.filter((a) => !a.startsWith('-'));
  if (program === 'npm') {
    const [sub, name] = operands;
    if (sub === 'run' || sub === 'run-script') {
      if (name === undefined) return 'static';
      if (!(name in repo.scripts)) {
        problems.push(`npm run ${name}: package.json has no script ${JSON.stringify(name)}`);
        return 'static';
      }
      return RUNNABLE_SCRIPTS.has(name) ? 'run' : 'static';
    }
    if ((sub === 'start' || sub === 'test') && !(sub in repo.scripts)) problems.push(`npm ${sub}: package.json has no ${sub} script`);
    return 'static';
  }
  if (program === 'npx') {
    const [tool, ...rest] = operands;
    if (tool === undefined) return 'static';
    // npx fetches a tool that is not installed: never offline, never pinned.
    if (!existsSync(join(repo.root, 'node_modules', '.bin', tool))) problems.push(`npx ${tool}: not installed by npm ci (npx would download it)`);
    if (tool === 'wrangler' && (ONLINE_WRANGLER.test(rest.join(' ')) || args.includes('--remote'))) return 'online';
    return RUNNABLE_TOOLS.has(tool) ? 'run' : 'static';
  }
  if (program === 'curl') {
    const urls = args.filter((a) => /^https?:\/\//.test(a));
    return urls.length > 0 && urls.every((u) => LOCAL_URL.test(u)) ? 'run' : 'online';
  }
  if (program === 'wrangler') return 'online';
  return NEUTRAL.has(program) ? 'neutral' : 'static';
}

export function isSourcePath(word: string): boolean {
  const path = word.replace(/^\.\//, '');
  return SOURCE_FOLDERS.some((f) => path.startsWith(`${f}/`)) && !/[*?{}<>…$]/.test(path);
}

/**
 * The repository paths a word names: itself, or each member of a comma-separated list
 * (`MUTATION_TESTS=a.test.ts,b.test.ts`, `--mutate "a.ts,b.ts"`), less a `:line` or `:from-to` suffix
 * (Stryker's `src/x.ts:80-80`).
 */
export function namedPaths(word: string): string[] {
  return word
    .split(',')
    .map((part) => part.replace(/:\d+(-\d+)?$/, ''))
    .filter(isSourcePath);
}

/** The settings a `start` command gives its gateway: its `NAME=value` assignments. */
export function startSettings(command: DocCommand): Record<string, string> {
  const [only] = segments(command.text);
  return Object.fromEntries((only?.assignments ?? []).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
}
