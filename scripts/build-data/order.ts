/** Plain code-unit order, never locale order: the fixture's arrays and keys sort the same on every machine. */
export const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
