/**
 * Checks the commands of every Markdown file of the repository (or of the files given): every `npm run X` names
 * a script, every `npx` tool is installed, every repository path mentioned exists, and the
 * commands that can run offline run (see check-docs/classify.ts for which), against a demo gateway
 * the checker starts and in a scratch copy of the repository. Blocks marked ```sh online are
 * skipped, visibly. Each finding names file, line and command; exit status 1 when any fails.
 *
 *   npm run docs:check
 *   npm run docs:check -- docs/workers.md
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SOURCE_FOLDERS, classify, startSettings, type Repository } from './check-docs/classify';
import { extractCommands, extractPathMentions } from './check-docs/markdown';
import { DocsGateways, runCommands, type RunnableCommand } from './check-docs/run';
import { fromCommandLine } from './credentials/files';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Finding {
  file: string;
  line: number;
  status: 'ok' | 'FAIL' | 'static' | 'skip (online)';
  text: string;
  detail?: string;
}

export async function checkDocs(files: string[], print: (line: string) => void): Promise<boolean> {
  const repo: Repository = { root: ROOT, scripts: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts };
  const gateways = new DocsGateways(ROOT);
  const findings: Finding[] = [];
  try {
    for (const path of files) {
      const name = relative(ROOT, path).startsWith('..') ? path : relative(ROOT, path);
      const text = readFileSync(path, 'utf8');
      for (const mention of extractPathMentions(name, text, SOURCE_FOLDERS)) {
        const target = mention.kind === 'link' ? resolve(dirname(path), mention.path) : join(ROOT, mention.path);
        if (!existsSync(target))
          findings.push({
            file: name,
            line: mention.line,
            status: 'FAIL',
            text: mention.path,
            detail: `${mention.kind === 'link' ? 'linked' : 'mentioned'} path does not exist`,
          });
      }
      const runnable: RunnableCommand[] = [];
      for (const command of extractCommands(name, text)) {
        const { verdict, problems } = classify(command, repo);
        if (problems.length) findings.push({ file: name, line: command.line, status: 'FAIL', text: command.text, detail: problems.join('; ') });
        else if (verdict === 'run') runnable.push({ command });
        else if (verdict === 'start') runnable.push({ command, start: startSettings(command) });
        else findings.push({ file: name, line: command.line, status: verdict === 'online' ? 'skip (online)' : 'static', text: command.text });
      }
      const outcomes = await runCommands(ROOT, runnable, gateways);
      runnable.forEach(({ command }, i) => {
        const outcome = outcomes[i]!;
        const status = outcome.ok ? 'ok' : 'FAIL';
        findings.push({ file: name, line: command.line, status, text: command.text, detail: outcome.detail });
      });
    }
  } finally {
    gateways.stop();
  }
  findings.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  for (const f of findings) print(`${f.file}:${f.line}: ${f.status.padEnd(13)} ${f.text}${f.detail ? `  -- ${f.detail.trim()}` : ''}`);
  const count = (status: Finding['status']) => findings.filter((f) => f.status === status).length;
  const failed = count('FAIL');
  print(`docs:check: ${count('ok')} ran, ${count('static')} checked without running, ${count('skip (online)')} skipped (online), ${failed} failed`);
  return failed === 0;
}

/** Folders whose Markdown is not the repository's own: installed, built, generated or written by a run. */
const NOT_DOCS = new Set(['node_modules', 'generated', 'dist', 'dist-worker', 'reports', 'test-output']);

/** Every Markdown file of the repository, README.md first, then by path; hidden folders and NOT_DOCS left out. */
export function defaultFiles(dir = ROOT): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || NOT_DOCS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...defaultFiles(path));
    else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path);
  }
  if (dir !== ROOT) return found;
  const readme = join(ROOT, 'README.md');
  return [readme, ...found.filter((f) => f !== readme).sort()];
}

// Started as a program (`npm run docs:check`), not imported.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const args = process.argv.slice(2);
  checkDocs(args.length ? args.map(fromCommandLine) : defaultFiles(), (line) => console.log(line)).then(
    (ok) => (process.exitCode = ok ? 0 : 1),
    (err: Error) => {
      console.error(`docs:check: ${err.message}`);
      process.exitCode = 1;
    },
  );
}
