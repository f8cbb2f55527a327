import { MIGRATION_PLAN_PATH } from './names';
import { preflight, read } from './operations';
import type { JsonSchema, PathItem } from './types';

const text = (description: string): JsonSchema => ({ type: 'string', description });
const instant = (description: string): JsonSchema => ({ type: ['string', 'null'], format: 'date-time', description });
const counts = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: { type: 'integer', minimum: 0 } });

/** `GET /migration-plan`: the caller's own plan, from what the gateway counted of its calls. */
export function migrationPlanPath(): PathItem {
  const operationId = 'getMigrationPlan';
  return {
    ...read({
      operationId,
      summary: "The caller's own migration plan from v1",
      description:
        "What this credential's project (or member, or OAuth client) must change to move its v1 calls to v2, item by item, from the calls the gateway counted. Only the caller's own plan: the subject is the credential's. Reading it counts as no call.",
      tag: 'Migration',
      parameters: [],
      schema: 'MigrationPlanDetail',
      conditional: false,
    }),
    options: preflight(MIGRATION_PLAN_PATH, operationId),
  };
}

/** The plan's schemas (`src/migration/plan/plan.ts` builds the plan). */
export function migrationPlanSchemas(): Record<string, JsonSchema> {
  const example: JsonSchema = {
    type: 'object',
    required: ['caption', 'v1', 'v2'],
    properties: { caption: text('What the example shows.'), v1: text('The v1 answer (JSON).'), v2: text('The same in v2 (JSON).') },
    additionalProperties: false,
  };
  const item: JsonSchema = {
    type: 'object',
    required: ['change', 'action', 'evidence'],
    properties: {
      change: text('The v1 change that causes the item (`legacy-credentials`, `pages-of-ten`, ...), or `base-path`.'),
      action: text('What to do, in one sentence.'),
      evidence: { type: 'object', description: "The caller's own numbers behind it." },
      urgent: { type: 'boolean', const: true, description: 'A secret seen in URLs: do this, and rotate it, first.' },
      example: { $ref: '#/components/schemas/PlanExample' },
    },
    additionalProperties: false,
  };
  const plan: JsonSchema = {
    type: 'object',
    required: ['subject', 'contact', 'status', 'calls', 'first_v1_call', 'last_v1_call', 'first_v2_call', 'brownout_hits', 'parity', 'items'],
    properties: {
      subject: text('`project:<id>`, `member:<id>` or `client:<id>`: the caller.'),
      contact: { type: ['string', 'null'], description: 'The owner contact on record.' },
      status: { type: 'string', enum: ['not started', 'started', 'moved', 'at risk'] },
      calls: counts('Calls counted, by version.'),
      first_v1_call: instant('The first v1 call counted.'),
      last_v1_call: instant('The last v1 call counted.'),
      first_v2_call: instant('The first v2 call counted.'),
      brownout_hits: { type: 'integer', minimum: 0, description: 'v1 calls answered 410 by a brownout.' },
      parity: {
        type: ['object', 'null'],
        description: "Its v1 answers compared with the legacy backend: in the report's plans, read from the comparison lines where comparisons ran; null here.",
        required: ['answers', 'differed', 'paths'],
        properties: {
          answers: { type: 'integer', minimum: 0 },
          differed: { type: 'integer', minimum: 0 },
          paths: counts('Differences by JSON path (`data[].rank`).'),
        },
        additionalProperties: false,
      },
      items: { type: 'array', items: { $ref: '#/components/schemas/PlanItem' } },
    },
    additionalProperties: false,
  };
  const detail: JsonSchema = {
    type: 'object',
    required: ['data', 'links', 'meta'],
    properties: {
      data: { $ref: '#/components/schemas/MigrationPlan' },
      links: {
        type: 'object',
        required: ['self', 'guide'],
        properties: { self: text('This plan.'), guide: { type: 'string', format: 'uri', description: 'The migration guide.' } },
        additionalProperties: false,
      },
      meta: {
        type: 'object',
        required: ['counted_since', 'moved_since'],
        properties: {
          counted_since: instant('Since when the calls were counted (null: none yet).'),
          moved_since: { type: 'string', format: 'date-time', description: 'A caller with no v1 call since then has moved.' },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
  return { PlanExample: example, PlanItem: item, MigrationPlan: plan, MigrationPlanDetail: detail };
}
