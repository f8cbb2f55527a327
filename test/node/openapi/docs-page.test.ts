/**
 * `GET /docs` as a person sees it: the gateway on a real loopback port, the page in headless
 * Chromium (the system's, or the npm registry's where none is installed: support/chromium.ts), switched to v1. Everything the page loads
 * must come from the gateway itself. A screenshot is kept under `test-output/` (git-ignored).
 */
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeDocsAssets } from '../../../src/node/docs-assets';
import { launchChromium } from '../../support/chromium';
import { testApp } from '../../support/harness';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback';
import { nodeConnection } from '../../../src/node/connection';

const OUTPUT = new URL('../../../test-output/', import.meta.url);

let server: LoopbackServer;
let browser: Browser;

beforeAll(async () => {
  server = await serveOnLoopback(testApp({ services: { connection: nodeConnection, docsAssets: nodeDocsAssets() } }));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('GET /docs in a browser', () => {
  it('shows v2, switches to v1 with its operations marked deprecated, and loads nothing from another origin', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    page.setDefaultTimeout(10_000);
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });

    await page.goto(`${server.origin}/docs`);
    await page.locator('.opblock-summary-path[data-path="/species/{id}"]').first().waitFor({ timeout: 10_000 });
    expect(await page.locator('#docs-version option').allTextContents()).toEqual(['v2 (current)', 'v3 (preview)', 'v1 (deprecated, sunset 2027-07-31)']);
    expect(await page.locator('.opblock-deprecated').count()).toBe(0);
    // Only operations a caller can make: no refused methods, the preflights under their own tag.
    expect(await page.locator('.opblock-put, .opblock-patch, .opblock-delete').count()).toBe(0);
    expect(await page.locator('.opblock-tag[data-tag="Other methods"]').count()).toBe(0);
    expect(await page.locator('.opblock-tag[data-tag="CORS"]').count()).toBe(1);
    await expect.poll(() => page.locator('.servers select, .servers').first().textContent()).toContain('/v2');

    await page.selectOption('#docs-version', '/v1/openapi.json');
    await page.locator('.opblock-deprecated [data-path="/species"]').first().waitFor({ timeout: 10_000 });
    expect(page.url()).toMatch(/\?version=v1$/);
    // The enumeration routes do not exist in v1; every operation shown is deprecated.
    expect(await page.locator('[data-path="/genus/{id}/species"]').count()).toBe(0);
    // Only the token endpoint, which belongs to no version, is not deprecated.
    expect(await page.locator('.opblock-deprecated').count()).toBeGreaterThan(10);
    const current = await page.locator('.opblock:not(.opblock-deprecated) [data-path]').evaluateAll((els) => els.map((el) => el.getAttribute('data-path')));
    expect(new Set(current)).toEqual(new Set(['/token']));
    await expect.poll(() => page.locator('.info .description, .info .markdown').first().textContent()).toMatch(/Deprecated.*2027-07-31/s);

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: new URL('docs-v1.png', OUTPUT).pathname });

    const elsewhere = requested.filter((url) => !url.startsWith(`${server.origin}/`) && !url.startsWith('data:'));
    expect(elsewhere, 'requests to another origin').toEqual([]);
    expect(requested).toContain(`${server.origin}/docs/swagger-ui-bundle.js`);
    expect(requested).toContain(`${server.origin}/v1/openapi.json`);
    expect(problems).toEqual([]);
  });
});
