import type { DocsAssets } from '../openapi/docs-assets';
// Text modules (wrangler.toml [[rules]]): the files' contents, bundled into the worker.
import script from 'swagger-ui-dist/swagger-ui-bundle.js';
import style from 'swagger-ui-dist/swagger-ui.css';

/** The docs page's UI, served by the worker itself. */
export const workerDocsAssets: DocsAssets = { script: () => script, style: () => style };
