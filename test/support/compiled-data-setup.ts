/**
 * Runs before either test project: the compiled dataset in generated/ must match the fixture and
 * the compiler (as `npm test`'s pretest ensures), also when vitest is started directly.
 */
import { compileIfStale } from '../../scripts/compile-data';

export default function setup(): void {
  compileIfStale();
}
