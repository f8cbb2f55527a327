/** `npm run dev:legacy`, the local legacy v1 backend the README names for trying the migration controls. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/gateway-process';

describe('npm run dev:legacy', () => {
  it('serves v1 to the credential its start-up line gives for LEGACY_V1_AUTHORIZATION, and refuses others', async () => {
    const child = spawn('npm', ['run', '--silent', 'dev:legacy'], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const started = await new Promise<{ url: string; gateway: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no "legacy listening" line')), 60_000);
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (!line.includes('"legacy listening"')) return;
          clearTimeout(timer);
          resolve(JSON.parse(line));
        });
      });
      const authorization = /LEGACY_V1_AUTHORIZATION='([^']+)'/.exec(started.gateway)?.[1];
      expect(started.gateway).toContain(`LEGACY_V1_URL=${started.url}`);
      expect(authorization).toMatch(/^Bearer /);
      const answered = await fetch(`${started.url}/species?q=abies`, { headers: { Authorization: authorization! } });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
      expect((await fetch(`${started.url}/species`)).status).toBe(401);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  }, 90_000);
});
