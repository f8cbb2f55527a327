import type { VersionChange } from '../version';

export const legacyErrors: VersionChange = {
  name: 'legacy-errors',
  description: 'Errors are `application/json` `{"statusCode", "message"}` with the same status, instead of problem+json with a `code`.',
  error: (error) => ({
    contentType: 'application/json',
    body: { statusCode: error.status, message: error.detail ?? error.title },
  }),
};
