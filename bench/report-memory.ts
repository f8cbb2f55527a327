/**
 * `npm run bench:report-memory [-- LINES]`: the report's peak memory on a small generated log and on one
 * of a million requests (default), measured by `/usr/bin/time` around the report process. The
 * report streams, so the two peaks should be close; the ratio is printed. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, statSync, unlinkSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleLines } from './report-log';

const LARGE = Number(process.argv[2] ?? 1_000_000);
const SMALL = 10_000;
const ROOT = new URL('..', import.meta.url);

async function writeLog(requests: number): Promise<string> {
  const file = join(tmpdir(), `gateway-log-${process.pid}-${requests}.jsonl`);
  const out = createWriteStream(file);
  for (let i = 0; i < requests; i++) {
    if (!out.write(`${sampleLines(i).join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

function measure(file: string): { peakKiB: number; seconds: number; linesRead: number } {
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, '--import', 'tsx', 'scripts/report.ts', '--json', file], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
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
    const m = measure(file);
    peaks.push(m.peakKiB);
    rows.push(
      `| ${m.linesRead.toLocaleString('en')} | ${(size / 1024 / 1024).toFixed(1)} MiB | ${(m.peakKiB / 1024).toFixed(1)} MiB | ${m.seconds.toFixed(1)} s |`,
    );
  } finally {
    unlinkSync(file);
  }
}
console.log('| Log lines | Log size | Peak RSS of the report | Time |\n|---:|---:|---:|---:|');
console.log(rows.join('\n'));
console.log(`\nPeak RSS, large log / small log: ${(peaks[1]! / peaks[0]!).toFixed(2)}`);
