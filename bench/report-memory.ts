/**
 * `npm run bench:report-memory [-- REQUESTS]`: the report's peak memory and time on a small generated log
 * and on one of a million requests (default), from 2,000 clients, measured by `/usr/bin/time` around
 * the report process, alone and writing every client's migration plan (`--clients`). The report
 * streams, so the peaks should be close; the ratios are printed. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleLines } from './report-log';

const LARGE = Number(process.argv[2] ?? 1_000_000);
const SMALL = 10_000;
const CLIENTS = 2_000;
const ROOT = new URL('..', import.meta.url);

async function writeLog(requests: number): Promise<string> {
  const file = join(tmpdir(), `gateway-log-${process.pid}-${requests}.jsonl`);
  const out = createWriteStream(file);
  for (let i = 0; i < requests; i++) {
    if (!out.write(`${sampleLines(i, CLIENTS).join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

function measure(file: string, plans: boolean): { peakKiB: number; seconds: number; linesRead: number } {
  const started = performance.now();
  const dir = plans ? mkdtempSync(join(tmpdir(), 'plans-')) : undefined;
  const args = [...(dir ? ['--clients', dir] : []), '--json', file];
  const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, '--import', 'tsx', 'scripts/report.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (run.status !== 0) throw new Error(`report failed: ${run.stderr}`);
  const peakKiB = Number(run.stderr.trim().split('\n').at(-1));
  return { peakKiB, seconds: (performance.now() - started) / 1000, linesRead: JSON.parse(run.stdout).lines.read };
}

const rows: string[] = [];
const peaks: number[] = [];
for (const requests of [SMALL, LARGE]) {
  const file = await writeLog(requests);
  try {
    const size = statSync(file).size;
    for (const plans of [false, true]) {
      const m = measure(file, plans);
      peaks.push(m.peakKiB);
      rows.push(
        `| ${m.linesRead.toLocaleString('en')} | ${(size / 1024 / 1024).toFixed(1)} MiB | ${plans ? `report and ${CLIENTS} plans` : 'report'} | ${(m.peakKiB / 1024).toFixed(1)} MiB | ${m.seconds.toFixed(1)} s |`,
      );
    }
  } finally {
    unlinkSync(file);
  }
}
console.log('| Log lines | Log size | Run | Peak RSS | Time |\n|---:|---:|---|---:|---:|');
console.log(rows.join('\n'));
// peaks: small alone, small with plans, large alone, large with plans.
console.log(`\nPeak RSS, large log / small log: ${(peaks[2]! / peaks[0]!).toFixed(2)} alone, ${(peaks[3]! / peaks[1]!).toFixed(2)} with plans`);
console.log(`Peak RSS with plans / alone, large log: ${(peaks[3]! / peaks[2]!).toFixed(2)}`);
