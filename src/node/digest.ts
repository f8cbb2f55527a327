import * as nodeCrypto from 'node:crypto';

/**
 * SHA-256 hex, synchronously: no hop to WebCrypto's thread pool for every presented credential.
 * `crypto.hash` (Node 20.12 on) is the one-shot form, a third of the cost of a `Hash` object.
 */
const oneShot = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
export const nodeDigest = oneShot
  ? (text: string): string => oneShot('sha256', text, 'hex') as string
  : (text: string): string => nodeCrypto.createHash('sha256').update(text).digest('hex');
