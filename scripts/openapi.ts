/**
 * Writes every version's OpenAPI description, as the gateway serves it with the given (or default)
 * configuration, to a folder (`npm run openapi:write -- DIR`, default `dist/openapi`): for linters, code
 * generators and publishing. `npm run openapi:lint` lints what it writes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../src/config';
import { describeVersions } from '../src/openapi/document';
import { buildVersions } from '../src/versions';

const dir = process.argv[2] ?? 'dist/openapi';
const config = parseConfig(process.env);
mkdirSync(dir, { recursive: true });
for (const [base, doc] of describeVersions(config, buildVersions(config))) {
  const file = join(dir, `${base.slice(1).replaceAll('/', '-')}.json`);
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(file);
}
