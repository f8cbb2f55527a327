/** Token-endpoint helpers shared by the behavioural suites (runtime-neutral). */
import { DEMO, json, type SuiteClient } from './client';

export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** `POST /oauth/token` with a raw body and exactly the given headers. */
export function postToken(client: SuiteClient, body: string, headers: Record<string, string> = { 'Content-Type': FORM_TYPE }): Promise<Response> {
  return client.get('/oauth/token', headers, { method: 'POST', body });
}

/** `Basic` credentials as RFC 6749 2.3.1 builds them: form-encode, then base64. */
export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${btoa(`${enc(id)}:${enc(secret)}`)}`;
}

/** A fresh access token of the demo OAuth client (in the v3 preview), failing loudly otherwise. */
export async function mintDemoToken(client: SuiteClient): Promise<string> {
  const res = await postToken(client, `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`);
  const body = await json(res);
  if (res.status !== 200 || typeof body.access_token !== 'string') throw new Error(`token request -> ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
