/** The middle value of `xs` (the upper of the two middle ones when their count is even); `xs` is not changed. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
