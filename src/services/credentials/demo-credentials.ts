import type { CredentialDocument } from './credential-store';

/**
 * The bundled demo store (docs/reference/access.md), used when no store is configured.
 * Plaintext secrets are documented in the README; only their SHA-256 digests live here.
 */
export const DEMO_CREDENTIALS: CredentialDocument = {
  projects: [
    // demo-project-key
    { id: 'demo', key_sha256: '4db206302467add73ef02d29d4dd0454ef8bd9d1961ba0900ce5afd702326c79', resources: '*' },
    // demo-species-only-key
    { id: 'demo-limited', key_sha256: 'cb21bfa5fb842129b04fb2a3698bb6ef4f2dd8f3edab2fbdd85e52ddbb440e1c', resources: ['species'] },
  ],
  clients: [
    // demo-client-secret
    { id: 'demo-client', secret_sha256: '3b63d5e98b94cace167480e9cb590842715204d660aa53505638f357428cbe36', resources: '*', preview: true },
  ],
  personal_tokens: [
    // demo-personal-token
    { member: 'demo-member', token_sha256: '176f9338ba43e121c36a3cb31ae9c7243f433c967caaf350e7069705e3224923', resources: '*', preview: false },
  ],
};
