import { ApiError } from '../errors/api-error';
import type { ListQuery, OrderTerm, ResourceName } from './query';
import type { QueryParams } from './query-string';
import { RESOURCES } from './resources';

export const MAX_QUERY_LENGTH = 200;
const ORDER_PARAM = /^order\[(.*)\]$/;

/** `page`, `q` and `order[...]` of a collection request, validated (CONTRACT section 4). */
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
