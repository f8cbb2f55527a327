import type { Config } from '../config';
import type { Context } from 'hono';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../core/api-error';
import type { RateLimitDecision } from '../services/rate-limit/rate-limiter';
import { isPromise } from '../core/maybe-promise';
import type { Policy } from './policy';
import { policyHeaders } from './response-headers';

/** Every limit is per minute (docs/reference/operations.md and docs/reference/access.md). */
export const WINDOW_SECONDS = 60;

const policyValue = (policy: string, limit: number) => `"${policy}";q=${limit};w=${WINDOW_SECONDS}`;
const countsValue = (policy: string, decision: RateLimitDecision) => `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`;

/**
 * `RateLimit-Policy` and `RateLimit` in the syntax of the IETF httpapi ratelimit-headers draft,
 * e.g. `"default";q=120;w=60` and `"default";r=119;t=60`.
 */
export function rateLimitHeaders(policy: string, decision: RateLimitDecision): Record<string, string> {
  return { 'RateLimit-Policy': policyValue(policy, decision.limit), RateLimit: countsValue(policy, decision) };
}

/** The headers of a refused request: the counts and when to come back. */
export function refusedHeaders(policy: string, decision: RateLimitDecision): Record<string, string> {
  return { ...rateLimitHeaders(policy, decision), 'Retry-After': String(decision.resetSeconds) };
}

/**
 * Counts each authenticated request against its project (API key) or token subject (a member or
 * an OAuth client), whatever version or credential place it came through. Every response to an
 * authenticated caller carries the counts, errors and 304s included; over the limit: 429.
 */
export const rateLimit = (config: Pick<Config, 'rateLimitPerMinute'>, services: Pick<Services, 'rateLimiter' | 'metrics'>): Policy => {
  // The policy's value changes only with the limit: spelled once, not per request.
  const configured = policyValue('default', config.rateLimitPerMinute);
  /** Refuses past the limit; otherwise the counts go on the response. */
  const counted = (c: Context<AppEnv>, kind: string, id: string, decision: RateLimitDecision): undefined => {
    if (!decision.allowed) {
      services.metrics.refused('rate_limit');
      throw new ApiError(
        'svc/rateLimited',
        `More than ${decision.limit} requests this minute for ${kind} ${id}; retry in ${decision.resetSeconds} s.`,
        refusedHeaders('default', decision),
      );
    }
    const headers = policyHeaders(c);
    headers.set('ratelimit-policy', decision.limit === config.rateLimitPerMinute ? configured : policyValue('default', decision.limit));
    headers.set('ratelimit', countsValue('default', decision));
    return undefined;
  };
  return {
    before(c) {
      const caller = c.get('caller');
      if (!caller) return undefined;
      const { kind, id } = caller.principal;
      const decision = services.rateLimiter.hit(`${kind}:${id}`, config.rateLimitPerMinute, WINDOW_SECONDS);
      return isPromise(decision) ? decision.then((d) => counted(c, kind, id, d)) : counted(c, kind, id, decision);
    },
  };
};
