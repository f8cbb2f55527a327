import type { JsonObject, VersionChange } from '../version';

/** The record fields v1 spelled in UPPERCASE. Trait tokens and `growth_rate` already are, in both versions. */
const FIELDS = ['rank', 'status', 'duration'] as const;

const upper = (value: unknown): unknown =>
  typeof value === 'string' ? value.toUpperCase() : Array.isArray(value) ? value.map(upper) : value;

export const uppercaseEnums: VersionChange = {
  name: 'uppercase-enums',
  description: '`rank`, `status` and `duration` are UPPERCASE on every record that has them; trait tokens and `growth_rate` are unchanged.',
  record(record) {
    if (!FIELDS.some((field) => field in record)) return record;
    const out: JsonObject = { ...record };
    for (const field of FIELDS) if (field in out) out[field] = upper(out[field]);
    return out;
  },
};
