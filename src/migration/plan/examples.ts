import EXAMPLES from './examples.json';
import type { PlanExample } from './plan';

/** The examples `npm run docs:migration` computed from the bundled dataset, keyed `change route`. */
const examples = EXAMPLES as Record<string, PlanExample>;

/** A real example of `change` on `route`'s records, or undefined where the change leaves them as they are. */
export const planExample = (change: string, route: string): PlanExample | undefined => examples[`${change} ${route}`];
