import { parseInstant, RFC3339 } from '../core/intervals';
import { ConfigError } from './error';
import type { ConfigVars } from './types';

/**
 * The readers of one set of variables, by kind of value: each trims, treats an empty value as
 * unset, and refuses a value it cannot read with a `ConfigError` naming the variable.
 */
export function readers(vars: ConfigVars) {
  const text = (name: string): string | undefined => {
    const value = vars[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
      throw new ConfigError(name, `must be a whole number ${range} (got ${JSON.stringify(raw)})`);
    }
    return Number(raw);
  };
  const instant = (name: string, fallback: string): number => {
    const raw = text(name) ?? fallback;
    const ms = parseInstant(raw);
    if (ms !== undefined) return ms;
    if (RFC3339.test(raw))
      throw new ConfigError(name, `is not a real date and time: check the day of the month, the hour and the offset (got ${JSON.stringify(raw)})`);
    const hint = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(raw) ? " (this one has no offset, so it would depend on the server's time zone)" : '';
    throw new ConfigError(name, `must be an RFC 3339 date-time with an offset, Z or +hh:mm, such as 2027-07-31T00:00:00Z${hint} (got ${JSON.stringify(raw)})`);
  };
  const url = (name: string, fallback?: string): string | undefined => {
    const raw = text(name) ?? fallback;
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, `must be an http(s) URL (got ${JSON.stringify(raw)})`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(name, `must be an http(s) URL (got ${JSON.stringify(raw)})`);
    }
    return raw.replace(/\/+$/, '');
  };
  const bool = (name: string): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined || raw === 'false' || raw === '0' || raw === 'no') return false;
    if (raw === 'true' || raw === '1' || raw === 'yes') return true;
    throw new ConfigError(name, `must be true or false (got ${JSON.stringify(raw)})`);
  };
  return { text, int, instant, url, bool };
}

export type Readers = ReturnType<typeof readers>;
