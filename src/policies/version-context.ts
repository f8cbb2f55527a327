import type { Clock } from '../services/clock';
import { ApiError } from '../core/api-error';
import { isPromise } from '../core/maybe-promise';
import type { Version } from '../versions/version';
import { versionResolver, walk } from '../versions/walker';
import { asMiddleware, type Policy } from './policy';
import { policyHeaders } from './response-headers';

/**
 * Tells every later step which version the path belongs to, and stamps the version's own
 * response headers (v1: Deprecation, Sunset) on whatever comes back, errors and redirects included.
 */
export const versionPolicy = (versions: readonly Version[]): Policy => {
  const resolve = versionResolver(versions);
  return {
    before(c) {
      const resolved = resolve(c.req.path);
      const version = resolved?.version;
      c.set('version', version);
      c.set('base', resolved?.base ?? '');
      if (walk.hasHeaders(version)) walk.headers(version, policyHeaders(c));
      return undefined;
    },
  };
};

export const versionContext = (versions: readonly Version[]) => asMiddleware(versionPolicy(versions));

/** A retired version answers 410 to every request from its retirement instant on, and during its brownouts. */
export const retirement = (clock: Clock): Policy => ({
  before(c) {
    const version = c.get('version');
    const retiredAt = walk.retiredAt(version);
    const brownouts = walk.hasBrownouts(version);
    if (retiredAt === undefined && !brownouts) return undefined;
    const now = clock.now();
    if (retiredAt !== undefined && now >= retiredAt) {
      throw new ApiError('svc/gone', `${version!.name} was retired on ${new Date(retiredAt).toISOString()}; use /v2 at the same paths.`);
    }
    if (!brownouts) return undefined;
    // A brownout answers exactly as retirement will, for its interval only.
    const brownout = walk.brownoutAt(version, now);
    if (brownout) {
      c.get('logFlags').push('brownout');
      const until = new Date(brownout.end).toISOString();
      const retires = retiredAt === undefined ? '' : ` ahead of its retirement on ${new Date(retiredAt).toISOString()}`;
      // Answered by `identifiedInBrownout`, once the caller is known: the plans count brownout 410s per client.
      c.set('brownout', new ApiError('svc/gone', `${version!.name} is switched off until ${until}${retires}; use /v2 at the same paths.`));
    }
    return undefined;
  },
});

/**
 * Authentication during a brownout only names the caller, for the access line (a client that
 * meets a brownout is at risk at the sunset): whatever it finds, valid, refused or absent, the
 * answer is the brownout's 410, as the sunset's would be.
 */
export const identifiedInBrownout = (authentication: Policy): Policy => ({
  before(c) {
    const gone = c.get('brownout');
    if (gone === undefined) return authentication.before!(c);
    const answer = (): never => {
      throw gone;
    };
    try {
      const named = authentication.before!(c);
      if (isPromise(named)) return named.then(answer, answer);
    } catch {
      // Refused: the brownout answers all the same.
    }
    return answer();
  },
});
