import type { CredentialPlace, VersionChange } from '../version';

/** v1's places, in precedence order (CONTRACT section 7): the first one present wins. */
const V1_PLACES: readonly CredentialPlace[] = ['authorization', 'x-api-key', 'x-key', 'query:key', 'query:token'];

export const legacyCredentials: VersionChange = {
  name: 'legacy-credentials',
  description:
    'Besides the `Authorization` header, a credential may arrive in the `x-api-key` header, the `x-key` header, or the `key` or `token` query parameter (first one present wins).',
  credentials: (rules) => ({ ...rules, places: V1_PLACES }),
};
