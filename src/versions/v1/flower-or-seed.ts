import { recordSchemas } from '../../openapi/edit';
import type { VersionChange } from '../version';

const rename = (key: string) => (key === 'fruit_or_seed' ? 'flower_or_seed' : key);

export const flowerOrSeed: VersionChange = {
  name: 'flower-or-seed',
  description: 'The fruit-trait block is named `flower_or_seed` instead of `fruit_or_seed`.',
  record(record) {
    if (!('fruit_or_seed' in record)) return record;
    // Rebuilt rather than renamed in place, so the key keeps its position and the core's record is untouched.
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [rename(key), value]));
  },
  describe(doc) {
    for (const schema of recordSchemas(doc)) {
      if (!('fruit_or_seed' in schema.properties)) continue;
      schema.properties = Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [rename(key), value]));
      schema.required = schema.required.map(rename);
    }
  },
};
