import { describe, expect, it } from 'vitest';
import { v3 } from '../../../../src/versions/v3';
import { walk } from '../../../../src/versions/walker';
import { mintDemoToken } from '../../../suites/tokens';
import { v3Suite } from '../../../suites/v3.suite';
import { testApp } from '../../../support/harness';

v3Suite(() => testApp());

describe('v3 as version changes', () => {
  it('is two named changes over the core: Bearer only, preview only', () => {
    expect(v3.changes.map((ch) => ch.name)).toEqual(['bearer-only', 'preview-only']);
    for (const ch of v3.changes) expect(ch.description.length).toBeGreaterThan(20);
    expect(walk.credentials(v3)).toEqual({ places: ['authorization'], schemes: ['bearer'] });
    expect(walk.previewOnly(v3)).toBe(true);
  });

  it('logs the OAuth client as the subject of a v3 call', async () => {
    const t = testApp();
    const token = await mintDemoToken(t);
    await t.get('/v3/species', { Authorization: `Bearer ${token}` });
    await t.get('/v3/species', { Authorization: 'Bearer demo-personal-token' });
    expect(t.logs.slice(1).map((l) => [l.version, l.status, l.subject, l.credential])).toEqual([
      ['v3', 200, 'client:demo-client', 'bearer'],
      ['v3', 403, 'member:demo-member', 'bearer'],
    ]);
  });
});
