import type { VersionChange } from '../version';

export const flowerOrSeed: VersionChange = {
  name: 'flower-or-seed',
  description: 'The fruit-trait block is named `flower_or_seed` instead of `fruit_or_seed`.',
  record(record) {
    if (!('fruit_or_seed' in record)) return record;
    // Rebuilt rather than renamed in place, so the key keeps its position and the core's record is untouched.
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key === 'fruit_or_seed' ? 'flower_or_seed' : key, value]));
  },
};
