/**
 * docs/reference/ is the specification of what the gateway does: its error table is the source's
 * code table, row for row, and every page the index names exists and is named by it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/core/error-codes';

const DIR = new URL('../../../docs/reference/', import.meta.url);
const page = (name: string) => readFileSync(new URL(name, DIR), 'utf8');

describe('docs/reference', () => {
  it('lists every error code with its status and title, and no other', () => {
    const rows = [...page('errors.md').matchAll(/^\| (\d{3}) \| `([a-z]+\/[A-Za-z]+)` \| ([^|]+) \|/gm)].map((m) => [m[2], Number(m[1]), m[3]!.trim()]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, { status, title }]) => [code, status, title]));
  });

  it('has an index naming each of its pages', () => {
    const pages = readdirSync(DIR).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.length).toBeGreaterThanOrEqual(8);
    const index = page('README.md');
    for (const name of pages) expect(index, name).toContain(`](${name})`);
  });
});
