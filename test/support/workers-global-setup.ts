/**
 * Runs on the Node side before the workerd tests: a real backend on 127.0.0.1 (the bundled
 * gateway, a canonical v2 backend) for the upstream-mode tests, whose URL the tests `inject`.
 */
import type { TestProject } from 'vitest/node';
import { bundledUpstream } from './upstream';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstream = await bundledUpstream();
  project.provide('upstreamUrl', upstream.url);
  return () => upstream.close();
}
