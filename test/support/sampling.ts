/**
 * Whether a request id is sampled at `percent` (its text, as configured), worked out apart from
 * the gateway's sampler: FNV-1a of the id's UTF-16 units in BigInt arithmetic, below the percent in
 * hundredths read from the digits (`12.5` is 1250 of 10,000).
 */
export function expectedSampled(id: string, percent: string): boolean {
  let hash = 0x811c9dc5n;
  for (let i = 0; i < id.length; i++) hash = ((hash ^ BigInt(id.charCodeAt(i))) * 0x01000193n) & 0xffffffffn;
  const [whole = '0', fraction = ''] = percent.split('.');
  return hash % 10_000n < BigInt(Number(whole) * 100 + Number(fraction.padEnd(2, '0')));
}
