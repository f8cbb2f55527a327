import { ERROR_RESPONSE, schemaRef } from '../../openapi/names';
import type { VersionChange } from '../version';

export const legacyErrors: VersionChange = {
  name: 'legacy-errors',
  description: 'Errors are `application/json` `{"statusCode", "message"}` with the same status, instead of problem+json with a `code`.',
  error: (error) => ({
    contentType: 'application/json',
    body: { statusCode: error.status, message: error.detail ?? error.title },
  }),
  describe(doc) {
    doc.components.schemas.LegacyError = {
      type: 'object',
      description: 'A v1 error: the HTTP status and a sentence.',
      required: ['statusCode', 'message'],
      properties: { statusCode: { type: 'integer', minimum: 400, maximum: 599 }, message: { type: 'string' } },
      additionalProperties: false,
    };
    for (const [name, response] of Object.entries(doc.components.responses)) {
      const status = ERROR_RESPONSE.exec(name)?.[1];
      if (!status) continue;
      const schema = { allOf: [schemaRef('LegacyError'), { type: 'object', properties: { statusCode: { const: Number(status) } } }] };
      response.content = { 'application/json': { schema } };
    }
  },
};
