import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DocsAssets } from '../openapi/docs-assets';

/** The docs page's UI files from the installed `swagger-ui-dist`, read on first use. */
export function nodeDocsAssets(): DocsAssets {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const file = (name: string) => {
    let text: string | undefined;
    return () => (text ??= readFileSync(join(dir, name), 'utf8'));
  };
  return { script: file('swagger-ui-bundle.js'), style: file('swagger-ui.css') };
}
