import type { VersionChange } from '../version';

export const bearerOnly: VersionChange = {
  name: 'bearer-only',
  description: 'Only Bearer tokens (personal access tokens and OAuth tokens) are accepted; API keys get 401 auth/credentialNotAccepted.',
  credentials: (rules) => ({ ...rules, schemes: rules.schemes.filter((s) => s === 'bearer') }),
  describe(doc) {
    doc.security = doc.security.filter((requirement) => !('ApiKey' in requirement));
  },
};
