import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import { nodeDigest } from '../../src/node/digest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the Node entry', () => {
  it('digests credentials synchronously, exactly as WebCrypto does', async () => {
    for (const secret of ['demo-project-key', '', 'ключ ✓ 🔑', 'x'.repeat(1000)]) {
      const digest = nodeDigest(secret);
      expect(typeof digest).toBe('string');
      expect(digest).toBe(await sha256Hex(secret));
    }
  });

  it('writes log lines in batches and loses none when the process exits at once', () => {
    const script = [
      "const { batchedStdoutLog } = await import('./src/node/log.ts');",
      'const log = batchedStdoutLog();',
      'for (let i = 0; i < 2000; i++) log({ n: i });',
      'process.exit(0);',
    ].join('\n');
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).n);
    expect(lines).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  });
});
