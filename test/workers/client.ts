import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { parseConfig } from '../../src/config';
import worker from '../../src/worker';
import { configVars, type Gateway } from '../../src/worker/gateway';
import { validatorFor } from '../support/openapi-validator';
import { DEMO, type SuiteClient } from '../suites/client';

/** Relative paths go to `https://localhost`; absolute URLs (`http://api.example.com/...`) as they are. */
const requestTo = (path: string, headers: Record<string, string>, init: RequestInit) => new Request(new URL(path, 'https://localhost'), { ...init, headers });

/**
 * A suite client over a `fetch` handler inside workerd, with the test run's bindings. Every
 * response is first checked against the OpenAPI description of its version.
 */
function handlerClient(handler: Gateway): SuiteClient {
  const validator = validatorFor(parseConfig(configVars(env)));
  return {
    get: async (path, headers = { Authorization: DEMO.key }, init = {}) => {
      const request = requestTo(path, headers, init);
      const res = await handler.fetch(request, env, createExecutionContext());
      return validator.check(request.method, request.url, res);
    },
  };
}

/**
 * The worker entry's own `fetch` (the module instance workerd serves), with the bindings of
 * wrangler.toml and the test bindings of vitest.config.ts. The scheme of the URL is what the
 * worker sees. It is called directly rather than through `exports.default.fetch`, whose every
 * call gets slower as a test file's requests add up (cloudflare/workers-sdk#15446): the suites
 * send thousands.
 */
export function workerClient(): SuiteClient {
  return handlerClient(worker);
}

/** A suite client over a gateway built by the test (other bindings, a manual clock). */
export function gatewayClient(gateway: Gateway): SuiteClient {
  return handlerClient(gateway);
}
