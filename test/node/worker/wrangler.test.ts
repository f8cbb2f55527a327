/**
 * The deployed Workers environments never fall back to demo secrets (docs/reference/operations.md): only
 * the local configuration of wrangler.toml says DEMO_CREDENTIALS=allow, and an environment does
 * not inherit the top level's vars, which wrangler itself resolves here.
 */
import { describe, expect, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';

const config = new URL('../../../wrangler.toml', import.meta.url).pathname;
const vars = (env?: string) => unstable_readConfig({ config, env }, { hideWarnings: true }).vars as Record<string, unknown>;

describe('wrangler.toml', () => {
  it('allows demo credentials in the local configuration only', () => {
    expect(vars().DEMO_CREDENTIALS).toBe('allow');
    for (const env of ['staging', 'production']) expect(vars(env), env).not.toHaveProperty('DEMO_CREDENTIALS');
    // The environments exist and carry vars of their own: the check above reads something.
    for (const env of ['staging', 'production']) expect(vars(env), env).toMatchObject({ SERVICE_NAME: 'botanical' });
  });
});
