/**
 * The layers import downwards only: the canonical core knows nothing of the policies, versions,
 * services or routes built on it (the one error type it throws is a core module too), and nothing
 * outside the two entries imports a runtime API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier a source file imports or re-exports. */
const importsOf = (file: string): string[] =>
  [
    ...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s(?:[^;]*?from\s+)?'([^']+)'/gm),
    ...readFileSync(file, 'utf8').matchAll(/import\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]!);

describe('layers', () => {
  it('core imports nothing above it: only core modules', () => {
    const outside = sources(join(SRC, 'core')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => relative(SRC, join(file, '..', spec)))
        .filter((target) => !target.startsWith('core/'))
        .map((target) => `${relative(SRC, file)} -> ${target}`),
    );
    expect(outside).toEqual([]);
  });

  it('the error type is a leaf: it imports only the code table', () => {
    expect(importsOf(join(SRC, 'core/api-error.ts'))).toEqual(['./error-codes']);
    expect(importsOf(join(SRC, 'core/error-codes.ts'))).toEqual([]);
  });

  it('only the entries import runtime APIs (node:*, cloudflare:*)', () => {
    const entries = ['node.ts', 'worker.ts'];
    const offending = sources(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !entries.includes(file) && !file.startsWith('node/') && !file.startsWith('worker/'))
      .filter((file) => importsOf(join(SRC, file)).some((spec) => spec.startsWith('node:') || spec.startsWith('cloudflare:')));
    expect(offending).toEqual([]);
  });
});
