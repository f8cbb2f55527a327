/**
 * A global setup of the mutation run (vitest.mutation.config.ts): chooses the fixture's sample
 * (dataset-sample.ts) once, and gives it to every test file that asks (`inject('datasetSample')`).
 */
import type { TestProject } from 'vitest/node';
import { chooseSample } from './dataset-sample';

export default function setup(project: TestProject): void {
  project.provide('datasetSample', JSON.stringify(chooseSample()));
}
