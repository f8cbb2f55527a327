/**
 * What a behavioural suite needs from the gateway under test, whatever runs it: in-process on Node
 * (`app.request`) or inside workerd (the worker entry's `fetch`). Suites import nothing runtime-specific.
 */
export interface SuiteClient {
  /** A request to `path` (relative, e.g. `/v2/species?q=abies`) on `https://localhost`, with the
   * demo project key unless `headers` is given. */
  get(path: string, headers?: Record<string, string>, init?: RequestInit): Promise<Response>;
}

export const DEMO = {
  key: 'ApiKey demo-project-key',
  speciesOnlyKey: 'ApiKey demo-species-only-key',
  personalToken: 'Bearer demo-personal-token',
  clientId: 'demo-client',
  clientSecret: 'demo-client-secret',
} as const;

/** Parses a JSON body, failing with the status and raw text when it is not JSON. */
export async function json<T = any>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`expected JSON, got ${res.status}: ${text.slice(0, 300)}`);
  }
}

/** Follows `links.next` from `path`, returning every page's body. */
export async function walkPages(client: SuiteClient, path: string, headers?: Record<string, string>): Promise<any[]> {
  const pages: any[] = [];
  let next: string | undefined = path;
  while (next) {
    const res = await client.get(next, headers);
    const body = await json(res);
    if (res.status !== 200) throw new Error(`${next} -> ${res.status} ${JSON.stringify(body)}`);
    pages.push(body);
    next = body.links?.next;
    if (pages.length > 2000) throw new Error('runaway walk');
  }
  return pages;
}
