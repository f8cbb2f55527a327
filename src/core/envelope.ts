import { ApiError } from './api-error';
import type { JsonObject, PageResult } from './query';
import { CREDENTIAL_PARAMS, pairName, rawQueryPairs } from './query-string';

/**
 * `links` of a collection page (spec "Pagination rules"): relative paths that keep every query
 * parameter the caller sent, in the caller's order and encoding, except `page` (replaced) and
 * legacy credentials (dropped).
 */
export function pageLinks(path: string, url: string, page: number, lastPage: number): Record<string, string> {
  const pairs = rawQueryPairs(url);
  const kept: string[] = [];
  let pageAt = -1;
  for (const pair of pairs) {
    const name = pairName(pair);
    if (name === 'page') {
      if (pageAt < 0) pageAt = kept.length;
    } else if (!CREDENTIAL_PARAMS.has(name)) {
      kept.push(pair);
    }
  }
  const to = (n: number) => {
    const query = [...kept];
    query.splice(pageAt < 0 ? query.length : pageAt, 0, `page=${n}`);
    return `${path}?${query.join('&')}`;
  };
  if (lastPage === 0) return { self: to(page) };
  return {
    self: to(page),
    first: to(1),
    ...(page > 1 ? { prev: to(page - 1) } : {}),
    ...(page < lastPage ? { next: to(page + 1) } : {}),
    last: to(lastPage),
  };
}

/** The collection envelope of a page; a page past the last is 404 (page 1 of nothing is not). */
export function collectionEnvelope(page: PageResult, path: string, url: string): JsonObject {
  const lastPage = Math.ceil(page.total / page.perPage);
  if (page.page > Math.max(lastPage, 1)) {
    throw new ApiError('svc/notFound', `Page ${page.page} is past the last page (${lastPage}).`);
  }
  return {
    data: page.items,
    links: pageLinks(path, url, page.page, lastPage),
    meta: { total: page.total, per_page: page.perPage, current_page: page.page, last_page: lastPage },
  };
}
