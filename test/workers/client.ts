import { exports } from 'cloudflare:workers';
import { DEMO, type SuiteClient } from '../suites/client';

/**
 * A suite client over the worker entry's own `fetch` inside workerd: the deployed code path, with
 * the bindings of wrangler.toml. URLs are `https://localhost/...`; the scheme is what the worker sees.
 */
export function workerClient(): SuiteClient {
  return {
    get: (path, headers = { Authorization: DEMO.key }, init = {}) =>
      exports.default.fetch(new URL(path, 'https://localhost').toString(), { ...init, headers }),
  };
}
