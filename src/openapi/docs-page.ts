import { Hono } from 'hono';
import { etag } from 'hono/etag';
import type { AppEnv } from '../env';
import { PUBLIC } from '../core/cache-control';
import type { Version } from '../versions/version';
import { walk } from '../versions/walker';
import type { DocsAssets } from './docs-assets';
import { DOCS_SCRIPT } from './docs-script';
import { DESCRIPTION_PATH } from './names';
import { once, staticEntity, type StaticEntity } from './route';

export const DOCS_PATH = '/docs';

/** Everything the page loads comes from here: no other origin, no inline script. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // The UI sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The switcher's label of a version: current, deprecated with its sunset, or preview. */
export function versionLabel(version: Version): string {
  const retiredAt = walk.retiredAt(version);
  if (retiredAt !== undefined) return `${version.name} (deprecated, sunset ${day(retiredAt)})`;
  if (walk.previewOnly(version)) return `${version.name} (preview)`;
  return `${version.name} (current)`;
}

function page(versions: readonly Version[]): string {
  // The canonical version first, then the others in the order the gateway serves them.
  const ordered = [...versions].sort((a, b) => Number(a.changes.length > 0) - Number(b.changes.length > 0));
  const options = ordered
    .map(
      (v) => `<option value="${escapeHtml(`${v.bases[0]}${DESCRIPTION_PATH}`)}" data-version="${escapeHtml(v.name)}">${escapeHtml(versionLabel(v))}</option>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Botanical reference API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_PATH}/docs.css">
</head>
<body>
<header class="docs-bar"><strong>Botanical reference API</strong>
<label>Version <select id="docs-version">${options}</select></label></header>
<main id="docs-reference"></main>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/docs.js"></script>
</body>
</html>
`;
}

const DOCS_CSS = `.docs-bar{display:flex;gap:1.5rem;align-items:center;padding:.75rem 1.25rem;background:#1b3a2b;color:#fff;font-family:sans-serif}
.docs-bar select{margin-left:.5rem;font-size:1rem}
`;

interface DocsFile {
  type: string;
  entity: () => Promise<StaticEntity>;
}

/**
 * `GET /docs`: an interactive reference of the versions' descriptions, with a version switcher
 * (docs/reference/descriptions.md). The page and the UI's script and styles are all served from here, on
 * Node and on Workers; each is prepared on its first request and then served from memory.
 */
export function docsRoutes(versions: readonly Version[], assets: DocsAssets | undefined): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  if (!assets) return router;
  const file = (type: string, body: () => string): DocsFile => ({ type, entity: once(() => staticEntity(body())) });
  const files: Record<string, DocsFile> = {
    '': file('text/html; charset=utf-8', () => page(versions)),
    '/docs.js': file('text/javascript; charset=utf-8', () => DOCS_SCRIPT),
    '/docs.css': file('text/css; charset=utf-8', () => DOCS_CSS),
    '/swagger-ui-bundle.js': file('text/javascript; charset=utf-8', assets.script),
    '/swagger-ui.css': file('text/css; charset=utf-8', assets.style),
  };
  for (const [name, { type, entity }] of Object.entries(files)) {
    router.get(`${DOCS_PATH}${name}`, etag(), async (c) => {
      const { body, etag: tag, length } = await entity();
      return c.body(body, 200, {
        'Content-Type': type,
        'Content-Length': length,
        'Cache-Control': PUBLIC,
        ETag: tag,
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
      });
    });
  }
  return router;
}
