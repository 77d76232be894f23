// Writes each grouping's own record, row and dimensions into spec/openapi.json from src/report/dimensions.ts, so a
// client generated from the document knows `campaignName` on a campaign row and refuses `campaignNmae`. The data
// endpoint answers one of them (DataRecord), told apart by `groupBy`. test/contract.test.ts fails when the document is not what
// this writes: `npm run spec:groupings`.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GROUPINGS, type Grouping } from '../src/dataModel.ts';
import { DIMENSION_KEYS, UUID_KEYS } from '../src/report/dimensions.ts';

type Json = Record<string, unknown>;

const SPEC = 'spec/openapi.json';

/** CampaignDimensions, AdAccountDataRow, …: the grouping's name in PascalCase before the schema's. */
export const schemaName = (grouping: Grouping, what: 'Dimensions' | 'DataRow' | 'DataRecord') =>
  `${grouping.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}${what}`;

const KEY_SCHEMAS: Record<string, Json> = {
  month: { type: 'string', pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM.' },
  day: { type: 'string', format: 'date', description: 'With interval=day: the day.' },
  week: { type: 'string', format: 'date', description: 'With interval=week: the Monday that starts the week.' },
  platform: { $ref: '#/components/schemas/Platform' },
  externalId: { type: 'string', description: "The id on the ad platform (the import's campaign_id or creative_id)." },
};

const keySchema = (key: string): Json =>
  KEY_SCHEMAS[key] ?? (UUID_KEYS.has(key) ? { type: 'string', format: 'uuid' } : { type: 'string' });

/**
 * Each grouping's dimensions, row and record, derived from its dimension keys (the period keys of `interval` for all
 * but month), and DataRecord, the data endpoint's answer: one of the records, told apart by groupBy.
 */
export function groupingSchemas(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const grouping of GROUPINGS) {
    const keys = DIMENSION_KEYS[grouping];
    const period = grouping === 'month' ? [] : ['day', 'week', 'month'];
    out[schemaName(grouping, 'Dimensions')] = {
      type: 'object',
      description:
        `The dimension keys of a ${grouping} row` +
        (period.length ? "; with `interval`, the period's key (day, week or month) comes first." : '.'),
      required: [...keys],
      properties: Object.fromEntries([...period, ...keys].map((key) => [key, keySchema(key)])),
      additionalProperties: false,
    };
    out[schemaName(grouping, 'DataRow')] = {
      type: 'object',
      required: ['dimensions', 'metrics'],
      properties: {
        dimensions: { $ref: `#/components/schemas/${schemaName(grouping, 'Dimensions')}` },
        metrics: { $ref: '#/components/schemas/MetricValues' },
        compare: { $ref: '#/components/schemas/Compared' },
      },
    };
    out[schemaName(grouping, 'DataRecord')] = {
      description: `The answer to groupBy=${grouping}.`,
      allOf: [
        { $ref: '#/components/schemas/DataRecordBase' },
        {
          type: 'object',
          required: ['groupBy', 'rows'],
          properties: {
            groupBy: { type: 'string', const: grouping },
            rows: { type: 'array', items: { $ref: `#/components/schemas/${schemaName(grouping, 'DataRow')}` } },
          },
        },
      ],
    };
  }
  out.DataRecord = {
    description: "A report's numbers in one grouping: the record of the groupBy asked for.",
    oneOf: GROUPINGS.map((g) => ({ $ref: `#/components/schemas/${schemaName(g, 'DataRecord')}` })),
    discriminator: {
      propertyName: 'groupBy',
      mapping: Object.fromEntries(GROUPINGS.map((g) => [g, `#/components/schemas/${schemaName(g, 'DataRecord')}`])),
    },
  };
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = JSON.parse(readFileSync(SPEC, 'utf8'));
  Object.assign(doc.components.schemas, groupingSchemas());
  writeFileSync(SPEC, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote the ${GROUPINGS.length} groupings' schemas into ${SPEC}`);
}
