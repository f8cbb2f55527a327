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
import { asMiddleware, policyChain, type Policy } from '../../src/policies/policy';

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

  it('runs a policy with only a before or only an after where it stands', async () => {
    const events: string[] = [];
    const hono = new Hono<AppEnv>();
    const beforeOnly: Policy = { before: () => void events.push('before only') };
    const afterOnly: Policy = { after: (c) => void events.push(`after only (${c.res.status})`) };
    hono.use(policyChain([afterOnly, beforeOnly, afterOnly], (err, c) => c.text(`chain: ${err.message}`, 418)));
    hono.get('/', (c) => c.text('route'));
    const res = await hono.request('/');
    expect([res.status, await res.text()]).toEqual([200, 'route']);
    expect(events).toEqual(['before only', 'after only (200)', 'after only (200)']);
  });

  it('waits for an after that finishes later before the response goes', async () => {
    const events: string[] = [];
    const hono = new Hono<AppEnv>();
    const later: Policy = {
      after: (c) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            c.res.headers.set('X-Measured', 'yes');
            events.push('after later');
            resolve();
          }, 20),
        ),
    };
    hono.use(policyChain([later], (err, c) => c.text(err.message, 418)));
    hono.get('/', (c) => c.text('route'));
    const res = await hono.request('/');
    expect(events).toEqual(['after later']);
    expect(res.headers.get('X-Measured')).toBe('yes');
  });

  it('hands the afters the refusal as the request’s error', async () => {
    const seen: Array<string | undefined> = [];
    const hono = new Hono<AppEnv>();
    const watching: Policy = { after: (c) => void seen.push(c.error?.message) };
    const refusing: Policy = {
      before: () => {
        throw new ApiError('svc/notFound', 'refused here');
      },
    };
    hono.use(policyChain([watching, refusing], (err, c) => c.text(`chain: ${err.message}`, 418)));
    hono.get('/', (c) => c.text('route'));
    expect((await hono.request('/')).status).toBe(418);
    expect(seen).toEqual(['refused here']);
  });

  it('lets what is not an Error go past its error handler, as a chain of middlewares does', async () => {
    const hono = new Hono<AppEnv>();
    const throwing: Policy = {
      before: () => {
        throw 'not an error';
      },
    };
    hono.use(policyChain([throwing], (err, c) => c.text(`chain: ${err.message}`, 418)));
    hono.get('/', (c) => c.text('route'));
    await expect(hono.request('/')).rejects.toBe('not an error');
  });
});

describe('one policy as a middleware', () => {
  it('answers for the route when its before answers, without its after', async () => {
    const events: string[] = [];
    const hono = new Hono<AppEnv>();
    hono.use(asMiddleware({ before: () => new Response('answered', { status: 299 }), after: () => void events.push('after') }));
    hono.get('/', (c) => (events.push('route'), c.text('route')));
    const res = await hono.request('/');
    expect([res.status, await res.text()]).toEqual([299, 'answered']);
    expect(events).toEqual([]);
  });

  it('runs the route and then its after when its before lets the request go on', async () => {
    const events: string[] = [];
    const hono = new Hono<AppEnv>();
    hono.use(asMiddleware({ before: async () => void events.push('before'), after: async (c) => void events.push(`after (${c.res.status})`) }));
    hono.get('/', (c) => (events.push('route'), c.text('route', 201)));
    expect((await hono.request('/')).status).toBe(201);
    expect(events).toEqual(['before', 'route', 'after (201)']);
  });
});
