/**
 * The policies run as one middleware (src/policies/policy.ts). It must run them exactly as a chain
 * of middlewares would: every `before` in order, the route, every `after` in reverse; a refusal
 * rendered where it happens, with the `after`s of the policies before it still run and its own and
 * later ones not; an answer from a policy instead of the route; synchronous and asynchronous
 * policies alike.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/env';
import { ApiError } from '../../src/errors/api-error';
import { policyChain, type Policy } from '../../src/policies/policy';

function recorder() {
  const events: string[] = [];
  const policy = (name: string, behaviour: { refuse?: boolean; answer?: boolean; async?: boolean } = {}): Policy => ({
    before() {
      events.push(`before ${name}`);
      const go = (): Response | undefined => {
        if (behaviour.refuse) throw new ApiError('svc/notFound', `refused by ${name}`);
        return behaviour.answer ? new Response(`answered by ${name}`, { status: 299 }) : undefined;
      };
      return behaviour.async ? Promise.resolve().then(go) : go();
    },
    after(c) {
      events.push(`after ${name} (${c.res.status})`);
    },
  });
  const app = (list: Policy[]) => {
    const hono = new Hono<AppEnv>();
    hono.use(policyChain(list, (err, c) => c.text(`rendered: ${err.message}`, 418)));
    hono.get('/', (c) => {
      events.push('route');
      return c.text('route', 200);
    });
    return hono;
  };
  return { events, policy, app };
}

describe('the policy chain', () => {
  it('runs every before in order, the route, then every after in reverse', async () => {
    const { events, policy, app } = recorder();
    const res = await app([policy('a'), policy('b', { async: true }), policy('c')]).request('/');
    expect(await res.text()).toBe('route');
    expect(events).toEqual(['before a', 'before b', 'before c', 'route', 'after c (200)', 'after b (200)', 'after a (200)']);
  });

  for (const async of [false, true]) {
    it(`renders a ${async ? 'later' : 'synchronous'} refusal where it happens: the afters before it run, its own and later ones do not`, async () => {
      const { events, policy, app } = recorder();
      const res = await app([policy('a'), policy('b', { refuse: true, async }), policy('c')]).request('/');
      expect(res.status).toBe(418);
      expect(await res.text()).toBe('rendered: refused by b');
      expect(events).toEqual(['before a', 'before b', 'after a (418)']);
    });
  }

  it('takes a policy’s answer instead of the route’s', async () => {
    const { events, policy, app } = recorder();
    const res = await app([policy('a'), policy('b', { answer: true, async: true }), policy('c')]).request('/');
    expect(res.status).toBe(299);
    expect(await res.text()).toBe('answered by b');
    expect(events).toEqual(['before a', 'before b', 'after a (299)']);
  });

  it('lets the route’s errors reach the app’s error handler, then runs every after', async () => {
    const { events, policy } = recorder();
    const hono = new Hono<AppEnv>();
    hono.use(policyChain([policy('a'), policy('b')], (err, c) => c.text(`chain: ${err.message}`, 418)));
    hono.get('/', () => {
      throw new ApiError('svc/notFound', 'from the route');
    });
    hono.onError((err, c) => c.text(`app: ${err.message}`, 404));
    const res = await hono.request('/');
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('app: from the route');
    expect(events).toEqual(['before a', 'before b', 'after b (404)', 'after a (404)']);
  });
});
