/**
 * Signals through `npm start` (docs/reference/operations.md), with real processes: the start-up line
 * names the gateway's pid, SIGHUP to it reloads, and SIGHUP to npm's pid (which kills npm) does
 * not leave an orphaned gateway holding the port.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, type Started, startNpm } from '../../tools/processes';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const groups: Started<unknown>[] = [];
afterAll(() => Promise.all(groups.map((g) => g.stop())));

/** `npm start` in its own process group, once its gateway listens: npm's child, the listening line, and every line. */
async function npmStart() {
  const started = await startNpm(ROOT, { CREDENTIALS_FILE: '' });
  groups.push(started);
  if (!started.ready) throw new Error(`npm start exited ${started.exit?.code}:\n${started.output}`);
  return { npm: started.child, listening: started.ready, lines: started.lines };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (res) => res.status,
    () => undefined,
  );

describe('npm start and signals', () => {
  it('names the gateway’s pid (node, npm’s child) in its start-up line, and SIGHUP to it reloads without stopping', async () => {
    const { npm, listening, lines } = await npmStart();
    const pid = listening.pid!;
    expect(pid, 'the "pid" of the gateway listening line').toBeGreaterThan(0);
    expect(pid).not.toBe(npm.pid);
    expect(parentOf(pid), 'npm exec’s node directly: no shell between').toBe(npm.pid);
    const from = lines.length;
    process.kill(pid, 'SIGHUP');
    for (let i = 0; i < 80 && !lines.slice(from).some((l) => l.includes('SIGHUP')); i++) await sleep(25);
    expect(lines.slice(from).join('\n')).toMatch(/SIGHUP: no CREDENTIALS_FILE to read again/);
    expect(await answers(listening.port)).toBe(200);
    expect(alive(npm.pid!) && alive(pid)).toBe(true);
  });

  it('SIGHUP to npm’s pid (which ends npm) stops the gateway too: no orphan keeps the port', async () => {
    const { npm, listening, lines } = await npmStart();
    const pid = listening.pid!;
    expect(await answers(listening.port)).toBe(200);
    const sent = Date.now();
    process.kill(npm.pid!, 'SIGHUP');
    while (alive(pid) && Date.now() - sent < 5000) await sleep(50);
    expect(alive(pid), `gateway ${pid} still running ${Date.now() - sent} ms after npm ended:\n${lines.slice(-5).join('\n')}`).toBe(false);
    expect(await answers(listening.port), 'the port is free').toBeUndefined();
    expect(lines.join('\n')).toMatch(/npm \(pid \d+\) ended: stopping the gateway/);
  });
});
