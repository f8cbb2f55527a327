/** Case- and accent-folded text, for search: `Épinette` -> `epinette`. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/**
 * A collator made on its first comparison. The first `Intl` object of a process loads the
 * runtime's locale data (about 20 ms on a small machine): a server that never compares
 * (the orders are compiled ahead) never pays it at start-up.
 */
function lazyCollator(options: Intl.CollatorOptions): Pick<Intl.Collator, 'compare'> {
  let collator: Intl.Collator | undefined;
  return { compare: (a, b) => (collator ??= new Intl.Collator('en', options)).compare(a, b) };
}

/** Text order of `order[...]`: case- and accent-insensitive (CONTRACT section 4). */
export const textCollator = lazyCollator({ sensitivity: 'base' });

/** Default order of ids: numeric-aware, so `ABAM2` sorts before `ABAM10`. */
export const idCollator = lazyCollator({ numeric: true });
