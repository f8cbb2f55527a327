/** `npm run dev:legacy`, the local legacy v1 backend the README names for trying the migration controls. */
import { describe, expect, it } from 'vitest';
import { startProcess } from '../../../tools/processes';

describe('npm run dev:legacy', () => {
  it('serves v1 to the credential its start-up line gives for LEGACY_V1_AUTHORIZATION, and refuses others', async () => {
    const legacy = await startProcess({
      command: 'npm',
      args: ['run', '--silent', 'dev:legacy'],
      env: { PORT: '0' },
      group: true,
      ready: (line) => (line.includes('"legacy listening"') ? (JSON.parse(line) as { url: string; gateway: string }) : undefined),
    });
    try {
      const started = legacy.ready!;
      const authorization = /LEGACY_V1_AUTHORIZATION='([^']+)'/.exec(started.gateway)?.[1];
      expect(started.gateway).toContain(`LEGACY_V1_URL=${started.url}`);
      expect(authorization).toMatch(/^Bearer /);
      const answered = await fetch(`${started.url}/species?q=abies`, { headers: { Authorization: authorization! } });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
      expect((await fetch(`${started.url}/species`)).status).toBe(401);
    } finally {
      await legacy.stop();
    }
  });
});
