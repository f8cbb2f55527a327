/** Case- and accent-folded text, for search: `Épinette` -> `epinette`. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Text order of `order[...]`: case- and accent-insensitive (docs/reference/interface.md). */
export const textCollator = new Intl.Collator('en', { sensitivity: 'base' });

/** Default order of ids: numeric-aware, so `ABAM2` sorts before `ABAM10`. */
export const idCollator = new Intl.Collator('en', { numeric: true });
