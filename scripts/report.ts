/**
 * `npm run ops:report -- [--json] [FILE...]`: who still calls v1, and how well the facade matches the
 * legacy backend, from the gateway's JSON log lines (CONTRACT section 16). Reads the files in
 * turn, or standard input without any (or with `-`), one line at a time: a log of any size needs
 * no more memory than a small one.
 */
import { createReadStream, realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';
import { ReportBuilder, type Report } from './report/aggregate';
import { markdown } from './report/markdown';

/** Feeds every line of `input` to the builder, holding one line at a time. */
export async function readLines(input: Readable, builder: ReportBuilder): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) builder.addText(line);
}

export async function buildReport(files: string[], stdin: Readable): Promise<Report> {
  const builder = new ReportBuilder();
  for (const file of files.length > 0 ? files : ['-']) await readLines(file === '-' ? stdin : createReadStream(file), builder);
  return builder.result();
}

async function main(args: string[]): Promise<void> {
  const asJson = args.includes('--json');
  const unknown = args.find((a) => a.startsWith('--') && a !== '--json');
  if (unknown || args.includes('--help')) {
    console.error('usage: npm run ops:report -- [--json] [FILE...]   (no FILE, or -, reads standard input)');
    process.exit(unknown && unknown !== '--help' ? 2 : 0);
  }
  const report = await buildReport(
    args.filter((a) => a !== '--json'),
    process.stdin,
  );
  process.stdout.write(asJson ? `${JSON.stringify(report, null, 2)}\n` : markdown(report));
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: Error & { code?: string; path?: string }) => {
    console.error(err.code === 'ENOENT' ? `report: cannot read ${err.path}` : `report: ${err.message}`);
    process.exit(1);
  });
}
