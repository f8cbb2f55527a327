import { type Interval, parseIntervals } from '../core/intervals';
import { ConfigError } from './error';
import type { Readers } from './readers';
import type { MigrationConfig } from './types';

/** The migration controls (docs/reference/migration.md): `LEGACY_V1_URL`, `V1_ANSWER`, `V1_COMPARE_*`, `V1_BROWNOUTS`. */
export function parseMigration({ text, url }: Pick<Readers, 'text' | 'url'>): MigrationConfig {
  const legacyUrl = url('LEGACY_V1_URL');
  if (legacyUrl) {
    const parsed = new URL(legacyUrl);
    // Printed with the configuration, and fetch refuses them: the secret goes in LEGACY_V1_AUTHORIZATION.
    if (parsed.username || parsed.password) throw new ConfigError('LEGACY_V1_URL', 'must not carry credentials; set LEGACY_V1_AUTHORIZATION instead');
    if (parsed.search || parsed.hash) throw new ConfigError('LEGACY_V1_URL', 'must be a base URL without query or fragment');
  }
  const answer = text('V1_ANSWER') ?? 'facade';
  if (answer !== 'facade' && answer !== 'legacy') throw new ConfigError('V1_ANSWER', `must be facade or legacy (got ${JSON.stringify(answer)})`);
  const rawPercent = text('V1_COMPARE_PERCENT') ?? '0';
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(rawPercent) || Number(rawPercent) > 100) {
    throw new ConfigError('V1_COMPARE_PERCENT', `must be a number from 0 to 100 (got ${JSON.stringify(rawPercent)})`);
  }
  const comparePercent = Number(rawPercent);
  if (!legacyUrl && (answer === 'legacy' || comparePercent > 0)) {
    const asking = [answer === 'legacy' ? 'V1_ANSWER=legacy' : '', comparePercent > 0 ? `V1_COMPARE_PERCENT=${rawPercent}` : ''].filter(Boolean).join(' and ');
    throw new ConfigError('LEGACY_V1_URL', `must be set: ${asking} need${asking.includes(' and ') ? '' : 's'} the legacy v1 backend`);
  }
  const compareIgnore = (text('V1_COMPARE_IGNORE') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const badPath = compareIgnore.find((p) => !/^[^\s.[\]]+(\[\]|\.[^\s.[\]]+)*$/.test(p));
  if (badPath !== undefined) throw new ConfigError('V1_COMPARE_IGNORE', `holds a JSON path that is not of the form a.b[].c (got ${JSON.stringify(badPath)})`);
  let brownouts: Interval[];
  try {
    brownouts = parseIntervals(text('V1_BROWNOUTS') ?? '');
  } catch (err) {
    throw new ConfigError('V1_BROWNOUTS', (err as Error).message);
  }
  return { legacyUrl, legacyAuthorization: text('LEGACY_V1_AUTHORIZATION'), answer, comparePercent, compareIgnore, brownouts };
}
