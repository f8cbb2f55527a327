import { recordSchemas } from '../../openapi/edit';
import { LOWERCASE, UPPERCASE } from '../../openapi/schemas';
import type { JsonSchema } from '../../openapi/types';
import type { JsonObject, VersionChange } from '../version';

/** The record fields v1 spelled in UPPERCASE. Trait tokens and `growth_rate` already are, in both versions. */
const FIELDS = ['rank', 'status', 'duration'] as const;

const upper = (value: unknown): unknown => (typeof value === 'string' ? value.toUpperCase() : Array.isArray(value) ? value.map(upper) : value);

/** The field's schema with its pattern, examples and quoted tokens in UPPERCASE. */
function upperSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (out.pattern === LOWERCASE) out.pattern = UPPERCASE;
  if (Array.isArray(out.examples)) out.examples = out.examples.map(upper);
  if (typeof out.description === 'string') out.description = out.description.replace(/`[a-z]+`/g, (token) => token.toUpperCase());
  if (out.items) out.items = upperSchema(out.items as JsonSchema);
  return out;
}

export const uppercaseEnums: VersionChange = {
  name: 'uppercase-enums',
  description: '`rank`, `status` and `duration` are UPPERCASE on every record that has them; trait tokens and `growth_rate` are unchanged.',
  record(record) {
    if (!FIELDS.some((field) => field in record)) return record;
    const out: JsonObject = { ...record };
    for (const field of FIELDS) if (field in out) out[field] = upper(out[field]);
    return out;
  },
  describe(doc) {
    for (const schema of recordSchemas(doc)) {
      for (const field of FIELDS) {
        const property = schema.properties[field];
        if (property) schema.properties[field] = upperSchema(property);
      }
    }
  },
};
