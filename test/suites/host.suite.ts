/**
 * The host a request is for, as a client sees it (docs/reference/requests.md), where the request URL is
 * all the runtime shows (in process on Node, and Workers): its host is the effective host.
 */
import { describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';
import { BEFORE_CUTOFF, CUTOFF, type TransportSetup } from './transport.suite';

const PUBLIC_HOSTS = 'api.example.com,edge.example.com:8443,www.example.com:443';

export function hostSuite(clientAt: (setup: TransportSetup) => SuiteClient): void {
  const at = (env: Record<string, string>, now = BEFORE_CUTOFF) => clientAt({ now, env: { HTTPS_REDIRECT_UNTIL: CUTOFF, ...env } });
  const listed = () => at({ PUBLIC_HOSTS });

  describe('host: PUBLIC_HOSTS', () => {
    const rows: Array<{ url: string; status: number }> = [
      { url: 'https://api.example.com/v2/species', status: 200 },
      { url: 'https://API.Example.COM/v2/species', status: 200 },
      { url: 'https://api.example.com./v2/species', status: 200 },
      // An entry without a port matches any port.
      { url: 'https://api.example.com:9443/v2/species', status: 200 },
      { url: 'https://edge.example.com:8443/v2/species', status: 200 },
      // An entry with a port matches that port; one with 80 or 443 also a Host without a port
      // (behind a TLS-terminating proxy the gateway cannot tell which default the client used).
      { url: 'https://edge.example.com/v2/species', status: 421 },
      { url: 'https://edge.example.com:9443/v2/species', status: 421 },
      { url: 'https://www.example.com/v2/species', status: 200 },
      { url: 'http://www.example.com/v2/species', status: 301 },
      { url: 'https://www.example.com:8443/v2/species', status: 421 },
      { url: 'https://evil.example/v2/species', status: 421 },
      { url: 'https://api.example.com.evil.example/v2/species', status: 421 },
      { url: 'https://localhost/v2/species', status: 421 },
    ];
    for (const row of rows) {
      it(`${row.url} -> ${row.status}`, async () => {
        const res = await listed().get(row.url, { Authorization: DEMO.key }, { redirect: 'manual' });
        const body = row.status === 301 ? {} : await json(res);
        expect(res.status, JSON.stringify(body)).toBe(row.status);
        if (row.status === 421) {
          expect(res.headers.get('Content-Type')).toBe('application/problem+json');
          expect(body).toMatchObject({ status: 421, code: 'svc/misdirected' });
          expect(body.data).toBeUndefined();
          expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
        }
      });
    }

    it('answers a v1 path in the v1 shape, before any credential is looked at', async () => {
      const res = await listed().get('https://evil.example/v1/species?key=demo-project-key', {});
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(421);
      expect(body).toEqual({ statusCode: 421, message: expect.stringContaining('evil.example') });
      expect(JSON.stringify(body)).not.toContain('demo-project-key');
      expect(res.headers.get('Deprecation')).toBeTruthy();
    });

    it('refuses a misdirected plain-HTTP request instead of redirecting it anywhere', async () => {
      const res = await listed().get('http://evil.example/v1/species?key=demo-project-key', {}, { redirect: 'manual' });
      expect(res.status, await res.text()).toBe(421);
      expect(res.headers.get('Location')).toBeNull();
    });

    it('redirects plain HTTP for a public host to that host', async () => {
      const res = await listed().get('http://api.example.com/v2/species?page=2', {}, { redirect: 'manual' });
      expect(res.status, await res.text()).toBe(301);
      expect(res.headers.get('Location')).toBe('https://api.example.com/v2/species?page=2');
    });

    for (const path of ['/healthz', '/readyz']) {
      it(`lets the health check ${path} through for any host (load balancers probe by address)`, async () => {
        const res = await listed().get(`http://10.0.0.5:8787${path}`, {}, { redirect: 'manual' });
        expect(res.status, await res.text()).toBe(200);
      });
    }

    it('serves any valid host when PUBLIC_HOSTS is unset', async () => {
      const res = await at({}).get('https://anything.example/v2/species/ABBA');
      expect(res.status, await res.text()).toBe(200);
    });
  });

  describe('host: no redirect is cached (docs/reference/requests.md), a query with a credential least of all', () => {
    const queries = [
      '?key=demo-project-key',
      '?q=abies&KEY=demo-project-key',
      '?%6Bey=demo-project-key',
      '?access_token=abc&page=2',
      '?Client_Secret=abc',
      '?q=abies&page=2',
      '?keystone=1',
    ];
    for (const query of queries) {
      it(`${query}: Cache-Control: no-store`, async () => {
        const res = await at({}).get(`http://api.example.com/v1/species${query}`, {}, { redirect: 'manual' });
        expect(res.status, await res.text()).toBe(301);
        expect(res.headers.get('Location')).toBe(`https://api.example.com/v1/species${query}`);
        expect(res.headers.get('Cache-Control')).toBe('no-store');
        expect(res.headers.get('Vary')).toBeNull();
      });
    }
  });
}
