/**
 * Runs on the Node side before the workerd tests: a real backend on 127.0.0.1 (the bundled
 * gateway, a canonical v2 backend) for the upstream-mode tests, and legacy v1 backends for the
 * migration tests, whose URLs the tests `inject`.
 */
import type { TestProject } from 'vitest/node';
import { legacyV1 } from './legacy-v1';
import { bundledUpstream, recordingProxy } from './upstream';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstream = await bundledUpstream({ cacheableForSeconds: 60 });
  project.provide('upstreamUrl', upstream.url);
  // The same backend behind a proxy that records what each request carried (GET /__seen).
  const recording = await recordingProxy(upstream.url);
  project.provide('recordingUpstreamUrl', recording.url);
  // Legacy v1 backends for the migration tests: a faithful one, and one with a difference.
  const [legacy, differing] = await Promise.all([legacyV1(), legacyV1()]);
  differing.inject.add('lowercaseRank');
  project.provide('legacyUrl', legacy.url);
  project.provide('differingLegacyUrl', differing.url);
  return async () => {
    await Promise.all([upstream.close(), recording.close(), legacy.close(), differing.close()]);
  };
}
