import { ApiError } from './api-error';
import type { ListQuery, OrderTerm, ResourceName } from './query';
import type { QueryParams } from './query-string';
import { RESOURCES } from './resources';
import { fold } from './text';

export const MAX_QUERY_LENGTH = 200;
const ORDER_PARAM = /^order\[(.*)\]$/;
/** C0, DEL and C1: no record holds one, and a search text must never be able to reach past a field. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point of this rule.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** `page`, `q` and `order[...]` of a collection request, validated (docs/reference/interface.md). */
export function parseListQuery(params: QueryParams, resource: ResourceName): ListQuery {
  const single = (name: string): string | undefined => {
    const values = params.getAll(name);
    if (values.length > 1) throw new ApiError('svc/invalidParameter', `"${name}" may be given only once.`);
    return values[0];
  };

  const rawPage = single('page');
  if (rawPage !== undefined && !/^[1-9]\d{0,8}$/.test(rawPage)) {
    throw new ApiError('svc/invalidParameter', `"page" must be a positive whole number (got ${JSON.stringify(rawPage.slice(0, 20))}).`);
  }

  const rawQ = single('q');
  if (rawQ !== undefined && [...rawQ].length > MAX_QUERY_LENGTH) {
    throw new ApiError('svc/invalidParameter', `"q" may be at most ${MAX_QUERY_LENGTH} characters long.`);
  }
  if (rawQ !== undefined && rawQ !== '') checkSearchText(rawQ);

  const sortable = RESOURCES[resource].sortable;
  const order: OrderTerm[] = [];
  for (const [name, value] of params) {
    const field = ORDER_PARAM.exec(name)?.[1];
    if (field === undefined) continue;
    if (!sortable.includes(field)) {
      throw new ApiError('svc/invalidParameter', `"order[${field.slice(0, 40)}]": ${resource} can be ordered by ${sortable.join(', ')}.`);
    }
    if (value !== 'asc' && value !== 'desc') {
      throw new ApiError('svc/invalidParameter', `"order[${field}]" must be asc or desc.`);
    }
    if (order.some((t) => t.field === field)) throw new ApiError('svc/invalidParameter', `"order[${field}]" may be given only once.`);
    order.push({ field, direction: value });
  }

  return { q: rawQ === '' ? undefined : rawQ, order, page: rawPage === undefined ? 1 : Number(rawPage) };
}

/** docs/reference/requests.md: a `q` with a control character, or one that folds to nothing, is refused (it would match nothing, or everything). */
function checkSearchText(q: string): void {
  if (CONTROL_CHARACTER.test(q)) {
    throw new ApiError('svc/invalidParameter', '"q" must not hold control characters (U+0000 to U+001F, U+007F to U+009F).');
  }
  if (fold(q).trim() === '') {
    throw new ApiError('svc/invalidParameter', '"q" must hold a letter, digit or sign, not only spaces or combining marks.');
  }
}
