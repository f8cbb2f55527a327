/**
 * `npm run ops:report -- [--json] [--clients DIR [--moved-since DATE] [--credentials FILE]] [FILE...]`:
 * who still calls v1, and how well the facade matches the legacy backend, from the gateway's JSON
 * log lines (docs/retiring-v1.md); with `--clients`, one migration plan per v1 client. Reads the files in
 * turn, or standard input without any (or with `-`), one line at a time: a log of any size needs
 * no more memory than a small one.
 */
import { createReadStream, readFileSync, realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';
import { parseConfig } from '../src/config';
import { MOVED_AFTER_MS } from '../src/migration/plan/plan';
import { ReportBuilder, type Report } from './report/aggregate';
import { markdown } from './report/markdown';
import { writeClientPlans } from './report/plans';

/** Feeds every line of `input` to the builder, holding one line at a time. */
export async function readLines(input: Readable, builder: ReportBuilder): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) builder.addText(line);
}

export async function buildReport(files: string[], stdin: Readable, builder = new ReportBuilder()): Promise<Report> {
  for (const file of files.length > 0 ? files : ['-']) await readLines(file === '-' ? stdin : createReadStream(file), builder);
  return builder.result();
}

const USAGE =
  'usage: npm run ops:report -- [--json] [--clients DIR [--moved-since DATE] [--credentials FILE]] [FILE...]   (no FILE, or -, reads standard input)';
const VALUED = new Set(['--clients', '--moved-since', '--credentials']);

/** `contact` of each project, client and member in a credentials file, by subject. */
export function contactsOf(text: string): Map<string, string> {
  const doc = JSON.parse(text) as Record<string, Array<Record<string, unknown>> | undefined>;
  const out = new Map<string, string>();
  const add = (subject: string, contact: unknown) => typeof contact === 'string' && contact !== '' && out.set(subject, contact);
  for (const p of doc.projects ?? []) add(`project:${p.id}`, p.contact);
  for (const c of doc.clients ?? []) add(`client:${c.id}`, c.contact);
  for (const t of doc.personal_tokens ?? []) add(`member:${t.member}`, t.contact);
  return out;
}

async function main(args: string[]): Promise<void> {
  const options = new Map<string, string>();
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (VALUED.has(arg)) {
      const value = args[++i];
      if (value === undefined) fail(`${arg} needs a value`);
      options.set(arg, value);
    } else if (arg === '--json' || arg === '--help') options.set(arg, '');
    else if (arg.startsWith('--')) fail(`${arg} is not an option`);
    else files.push(arg);
  }
  if (options.has('--help')) {
    console.error(USAGE);
    process.exit(0);
  }
  const movedSinceText = options.get('--moved-since');
  if (movedSinceText !== undefined && Number.isNaN(Date.parse(movedSinceText))) fail('--moved-since must be a date (2027-03-01 or RFC 3339)');
  const builder = new ReportBuilder();
  const report = await buildReport(files, process.stdin, builder);
  const dir = options.get('--clients');
  if (dir !== undefined) {
    const credentials = options.get('--credentials');
    // Moved: no v1 call in the last 7 days of the logs, unless a date is given.
    const lastLine = report.period.to ? Date.parse(report.period.to) : Date.now();
    const movedSince = new Date(movedSinceText !== undefined ? Date.parse(movedSinceText) : lastLine - MOVED_AFTER_MS).toISOString();
    const plans = await writeClientPlans(dir, builder.usage.result(), {
      movedSince,
      sunset: new Date(parseConfig({ ...process.env }).v1Sunset).toISOString(),
      contacts: credentials ? contactsOf(readFileSync(credentials, 'utf8')) : new Map(),
    });
    console.error(`report: ${plans.length} migration plans and index.md in ${dir}`);
  }
  process.stdout.write(options.has('--json') ? `${JSON.stringify(report, null, 2)}\n` : markdown(report));
}

function fail(message: string): never {
  console.error(`report: ${message}\n${USAGE}`);
  process.exit(2);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: Error & { code?: string; path?: string }) => {
    console.error(err.code === 'ENOENT' ? `report: cannot read ${err.path}` : `report: ${err.message}`);
    process.exit(1);
  });
}
