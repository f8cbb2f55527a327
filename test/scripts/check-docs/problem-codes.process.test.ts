/**
 * The problem codes the docs announce under their curl examples (`# HTTP/1.1 400 ... {"code":"..."}`)
 * are the ones the gateway answers: `npm run docs:check` checks the status, this the code.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startGatewayProcess, type GatewayProcess } from '../../../tools/processes';

/** Every curl line against localhost:8787 directly followed by a comment announcing a problem code. */
const announced = ['README.md', ...readdirSync(`${ROOT}docs`).map((f) => `docs/${f}`)]
  .filter((f) => f.endsWith('.md'))
  .flatMap((file) => {
    const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
    return lines.flatMap((line, i) => {
      const code = /^# HTTP\/1\.1 \d{3} .*\{"code":"([^"]+)"/.exec(lines[i + 1] ?? '')?.[1];
      return code && /^curl .*localhost:8787/.test(line) ? [{ where: `${file}:${i + 1}`, command: line, code }] : [];
    });
  });

let gateway: GatewayProcess;
beforeAll(async () => {
  gateway = await startGatewayProcess({});
});
afterAll(() => gateway?.stop());

describe('problem codes announced under documented curl commands', () => {
  // By what it announces, not by line number: the docs move.
  it('finds some', () =>
    expect(announced).toContainEqual(expect.objectContaining({ where: expect.stringMatching(/^docs\/security\.md:\d+$/), code: 'svc/expectationFailed' })));

  it.each(announced)('$where answers $code', ({ command, code }) => {
    const run = spawnSync('bash', ['-c', command.replaceAll('localhost:8787', gateway.origin.replace('http://', ''))], { encoding: 'utf8' });
    expect(run.stdout).toContain(`"code":"${code}"`);
  });
});
