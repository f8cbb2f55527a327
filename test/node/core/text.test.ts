/**
 * The folding a search applies to `q` (docs/reference/interface.md): case and accents dropped, whichever
 * way the accent is written (one precomposed character or a letter and combining marks), so that
 * `Épinette`, `EPINETTE` and `épinette` search alike; a `q` of marks alone folds to nothing.
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../../src/core/text';

describe('fold', () => {
  it.each([
    ['Épinette', 'epinette'],
    ['SAPIN BAUMIER', 'sapin baumier'],
    ['E\u0301pinette', 'epinette'],
    ['Ñandú', 'nandu'],
    ['cra\u0308\u0301\u0323y', 'cray'],
    ['Große Fichte', 'große fichte'],
    ['\u0301\u0308', ''],
    ['abies 2', 'abies 2'],
  ])('%j -> %j', (text, folded) => {
    expect(fold(text)).toBe(folded);
  });
});
