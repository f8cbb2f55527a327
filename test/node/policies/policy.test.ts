/**
 * The policies run as one chain around whichever route answers (src/policies/policy.ts). It must
 * run them exactly as a chain of middlewares would: every `before` in order, the route, every
 * `after` in reverse; a refusal rendered where it happens, with the `after`s of the policies before
 * it still run and its own and later ones not; an answer from a policy instead of the route;
 * synchronous and asynchronous policies alike; once a request, whatever answers it; and without a
 * promise when nothing on the way is one.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../../src/env';
import { ApiError } from '../../../src/core/api-error';
import { asMiddleware, behindPolicies, policyChain, type Policy } from '../../../src/policies/policy';

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
  const app = (list: Policy[], routes = new Hono<AppEnv>()) => {
    routes.get('/', (c) => {
      events.push('route');
      return c.text('route', 200);
    });
    return behind(list, routes, (err, c) => c.text(`rendered: ${err.message}`, 418));
  };
  return { events, policy, app };
}

/** `routes` behind a chain of `list`, a path no route serves answered 404 inside it. */
const behind = (list: Policy[], routes: Hono<AppEnv>, onError: Parameters<typeof policyChain>[1]) =>
  behindPolicies(routes, policyChain(list, onError), (c) => c.text('no route', 404));

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

  for (const async of [false, true]) {
    it(`renders the route’s ${async ? 'later' : 'synchronous'} error where it happens, then runs every after`, async () => {
      const { events, policy } = recorder();
      const routes = new Hono<AppEnv>();
      routes.get('/', async () => {
        if (async) await Promise.resolve();
        throw new ApiError('svc/notFound', 'from the route');
      });
      const app = behind([policy('a'), policy('b')], routes, (err, c) => c.text(`chain: ${err.message}`, 404));
      app.onError((err, c) => c.text(`app: ${err.message}`, 500));
      const res = await app.request('/');
      expect(res.status).toBe(404);
      expect(await res.text()).toBe('chain: from the route');
      expect(events).toEqual(['before a', 'before b', 'after b (404)', 'after a (404)']);
    });
  }

  it('runs once for a request a route’s middleware and the route both match, around both', async () => {
    const { events, policy, app } = recorder();
    const routes = new Hono<AppEnv>();
    routes.use('/', async (_c, next) => {
      events.push('middleware');
      await next();
    });
    const res = await app([policy('a'), policy('b', { async: true })], routes).request('/');
    expect(await res.text()).toBe('route');
    expect(events).toEqual(['before a', 'before b', 'middleware', 'route', 'after b (200)', 'after a (200)']);
  });

  it('runs for a path no route serves, around its 404', async () => {
    const { events, policy, app } = recorder();
    const res = await app([policy('a'), policy('b')]).request('/nowhere');
    expect([res.status, await res.text()]).toEqual([404, 'no route']);
    expect(events).toEqual(['before a', 'before b', 'after b (404)', 'after a (404)']);
  });

  it('answers without a promise when every step answers at once, and with one when a step waits', async () => {
    const { events, policy, app } = recorder();
    const now = app([policy('a'), policy('b')]).fetch(new Request('http://localhost/'));
    expect(now).toBeInstanceOf(Response);
    const later = app([policy('c'), policy('d', { async: true })]).fetch(new Request('http://localhost/'));
    expect(later).toBeInstanceOf(Promise);
    expect(await (await later).text()).toBe('route');
    expect(events).toEqual([
      'before a',
      'before b',
      'route',
      'after b (200)',
      'after a (200)',
      'before c',
      'before d',
      'route',
      'after d (200)',
      'after c (200)',
    ]);
  });

  it('refuses a route that returns no response, as an error rendered where it happens', async () => {
    const { events, policy } = recorder();
    const routes = new Hono<AppEnv>();
    routes.get('/', () => undefined as unknown as Response);
    const res = await behind([policy('a')], routes, (err, c) => c.text(`chain: ${err.message}`, 500)).request('/');
    expect([res.status, await res.text()]).toEqual([500, 'chain: the route returned no response']);
    expect(events).toEqual(['before a', 'after a (500)']);
  });

  it('does not take an after that throws for a refusal: it reaches the app’s error handler, and no after runs twice', async () => {
    const events: string[] = [];
    const throwing: Policy = {
      after: () => {
        events.push('after throwing');
        throw new Error('after failed');
      },
    };
    const outer: Policy = { after: () => void events.push('after outer') };
    const routes = new Hono<AppEnv>();
    routes.get('/', (c) => c.text('route'));
    const app = behind([outer, throwing], routes, (err, c) => c.text(`chain: ${err.message}`, 418));
    app.onError((err, c) => c.text(`app: ${err.message}`, 500));
    const res = await app.request('/');
    expect([res.status, await res.text()]).toEqual([500, 'app: after failed']);
    expect(events).toEqual(['after throwing']);
  });

  it('runs a policy with only a before or only an after where it stands', async () => {
    const events: string[] = [];
    const routes = new Hono<AppEnv>();
    const beforeOnly: Policy = { before: () => void events.push('before only') };
    const afterOnly: Policy = { after: (c) => void events.push(`after only (${c.res.status})`) };
    routes.get('/', (c) => c.text('route'));
    const res = await behind([afterOnly, beforeOnly, afterOnly], routes, (err, c) => c.text(`chain: ${err.message}`, 418)).request('/');
    expect([res.status, await res.text()]).toEqual([200, 'route']);
    expect(events).toEqual(['before only', 'after only (200)', 'after only (200)']);
  });

  it('waits for an after that finishes later before the response goes', async () => {
    const events: string[] = [];
    const routes = new Hono<AppEnv>();
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
    routes.get('/', (c) => c.text('route'));
    const res = await behind([later], routes, (err, c) => c.text(err.message, 418)).request('/');
    expect(events).toEqual(['after later']);
    expect(res.headers.get('X-Measured')).toBe('yes');
  });

  it('hands the afters the refusal as the request’s error', async () => {
    const seen: Array<string | undefined> = [];
    const routes = new Hono<AppEnv>();
    const watching: Policy = { after: (c) => void seen.push(c.error?.message) };
    const refusing: Policy = {
      before: () => {
        throw new ApiError('svc/notFound', 'refused here');
      },
    };
    routes.get('/', (c) => c.text('route'));
    expect((await behind([watching, refusing], routes, (err, c) => c.text(`chain: ${err.message}`, 418)).request('/')).status).toBe(418);
    expect(seen).toEqual(['refused here']);
  });

  it('lets what is not an Error go past its error handler, as a chain of middlewares does', async () => {
    const routes = new Hono<AppEnv>();
    const throwing: Policy = {
      before: () => {
        throw 'not an error';
      },
    };
    routes.get('/', (c) => c.text('route'));
    const app = behind([throwing], routes, (err, c) => c.text(`chain: ${err.message}`, 418));
    await expect(async () => app.request('/')).rejects.toBe('not an error');
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
