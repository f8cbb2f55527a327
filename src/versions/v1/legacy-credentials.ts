import type { CredentialPlace, VersionChange } from '../version';

/** v1's places, in precedence order (docs/reference/access.md): the first one present wins. */
const V1_PLACES: readonly CredentialPlace[] = ['authorization', 'x-api-key', 'x-key', 'query:key', 'query:token'];

export const legacyCredentials: VersionChange = {
  name: 'legacy-credentials',
  description:
    'Besides the `Authorization` header, a credential may arrive in the `x-api-key` header, the `x-key` header, or the `key` or `token` query parameter (first one present wins).',
  credentials: (rules) => ({ ...rules, places: V1_PLACES }),
  describe(doc) {
    const secret = 'A project API key or a token, bare; legacy, so never in a browser.';
    Object.assign(doc.components.securitySchemes, {
      XApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: secret },
      XKey: { type: 'apiKey', in: 'header', name: 'x-key', description: secret },
      KeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: `${secret} Never copied into links.` },
      TokenQuery: { type: 'apiKey', in: 'query', name: 'token', description: `${secret} Never copied into links.` },
    });
    doc.security.push({ XApiKey: [] }, { XKey: [] }, { KeyQuery: [] }, { TokenQuery: [] });
  },
};
