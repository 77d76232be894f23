// The file `readout apply` reads and `readout config export` writes (docs/decisions.md §12): an organization's ad
// accounts, declared base metrics, custom metrics, segments and reports. This schema checks the file's shape;
// spec/readout-config.schema.json is generated from it (scripts/configSchema.ts), so editors check the same rules.
// What needs the database (does a campaign exist, does a formula parse) is checked by changes.ts.
import * as v from 'valibot';
import { GROUPINGS, METRIC_KINDS, PLATFORMS, REPORT_KINDS } from '../dataModel.ts';

const text = (max: number, what: string) =>
  v.pipe(
    v.string(),
    v.minLength(1, `${what} must not be empty`),
    v.maxLength(max, `${what} is longer than ${max} characters`),
  );
const description = v.optional(v.pipe(v.string(), v.maxLength(2000, 'description is longer than 2000 characters')), '');
const currency = v.pipe(
  v.string(),
  v.regex(/^[A-Z]{3}$/, (issue) => `must be a three-letter ISO 4217 code such as EUR, got ${issue.received}`),
  v.description('ISO 4217 currency code'),
);
/** Platform ids are the platform's own; a slash would make the `platform/account/campaign` keys ambiguous. */
const externalId = v.pipe(
  text(200, 'externalId'),
  v.regex(/^[^/\s](?:[^/]*[^/\s])?$/, 'externalId must not contain "/" nor start or end with a space'),
);
const repeated = (items: unknown[]) => items.find((item, i) => items.indexOf(item) !== i);
const list = <T extends v.GenericSchema>(item: T, what: string) =>
  v.pipe(
    v.array(item),
    v.check(
      (items) => repeated(items) === undefined,
      (issue) => `${what} lists ${JSON.stringify(repeated(issue.input as unknown[]))} twice`,
    ),
  );

export const ACCOUNT_KEY = /^([a-z-]+)\/([^/]+)$/;
export const CAMPAIGN_KEY = /^([a-z-]+)\/([^/]+)\/([^/]+)$/;
export const METRIC_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export const AdAccountSchema = v.pipe(
  v.strictObject({
    platform: v.picklist(PLATFORMS),
    externalId,
    name: text(200, 'name'),
    currency,
    timeZone: v.optional(v.pipe(v.string(), v.description('IANA time zone; UTC for a new account when left out'))),
  }),
  v.description('An ad account, keyed by platform and externalId: created, or renamed, never deleted by apply.'),
);

const metricName = (pattern: RegExp, max: number) =>
  v.pipe(
    v.string(),
    v.regex(pattern, `name must be lower case letters, digits and _ (starting with a letter, at most ${max})`),
  );

export const MetricSchema = v.pipe(
  v.strictObject({
    name: metricName(METRIC_NAME, 63),
    displayName: v.optional(text(200, 'displayName')),
    kind: v.picklist(METRIC_KINDS),
    unit: v.optional(v.pipe(text(40, 'unit'), v.description('what one unit of the value is; by kind when left out'))),
    description,
    formula: v.pipe(text(1000, 'formula'), v.description('metric names, numbers, + - * / and parentheses')),
  }),
  v.description('A custom metric, keyed by name: a formula over system metrics and other custom metrics.'),
);

/** docs/decisions.md §5: at most this many declared base metrics an organization, each a slot of a fact's numbers. */
export const MAX_BASE_METRICS = 8;
export const BASE_METRIC_NAME = /^[a-z][a-z0-9_]{0,39}$/;

export const BaseMetricSchema = v.pipe(
  v.strictObject({
    name: metricName(BASE_METRIC_NAME, 40),
    displayName: v.optional(text(200, 'displayName')),
    kind: v.picklist(['count', 'money']),
    whole: v.optional(
      v.pipe(v.boolean(), v.description('counts only: imported values must be whole numbers (true when left out)')),
    ),
    conversionDerived: v.optional(
      v.pipe(v.boolean(), v.description('a plan without conversion metrics does not see it (false when left out)')),
      false,
    ),
    description,
  }),
  v.check(
    (entry) => entry.kind !== 'money' || entry.whole !== true,
    'whole applies to counts only: money is a decimal amount',
  ),
  v.description(
    'A base metric the organization declares, keyed by name: an additive number imported from the CSV column of ' +
      'its name, summed and (money) converted like the built-in ones.',
  ),
);

export const SegmentSchema = v.pipe(
  v.strictObject({
    name: text(200, 'name'),
    description,
    campaigns: v.optional(
      list(
        v.pipe(v.string(), v.regex(CAMPAIGN_KEY, 'a campaign is platform/accountExternalId/campaignExternalId')),
        'campaigns',
      ),
      [],
    ),
  }),
  v.description('A named set of campaigns, keyed by name.'),
);

export const ReportSchema = v.pipe(
  v.strictObject({
    name: text(200, 'name'),
    description,
    kind: v.picklist(REPORT_KINDS),
    currency,
    adAccounts: v.pipe(
      list(v.pipe(v.string(), v.regex(ACCOUNT_KEY, 'an ad account is platform/externalId')), 'adAccounts'),
      v.minLength(1, 'a report needs at least one ad account'),
    ),
    segments: v.optional(list(v.string(), 'segments'), []),
    metrics: v.pipe(list(v.string(), 'metrics'), v.minLength(1, 'a report needs at least one metric')),
    groupings: v.pipe(list(v.picklist(GROUPINGS), 'groupings'), v.minLength(1, 'a report needs at least one grouping')),
  }),
  v.description('A report definition, keyed by name.'),
);

export const ConfigSchema = v.pipe(
  v.strictObject({
    $schema: v.optional(v.string()),
    adAccounts: v.optional(v.array(AdAccountSchema), []),
    baseMetrics: v.optional(v.array(BaseMetricSchema), []),
    metrics: v.optional(v.array(MetricSchema), []),
    segments: v.optional(v.array(SegmentSchema), []),
    reports: v.optional(v.array(ReportSchema), []),
  }),
  v.title('readout organization catalogue'),
  v.description(
    "An organization's ad accounts, declared base metrics, custom metrics, segments and reports, as `readout apply` " +
      'reads them (docs/decisions.md §12).',
  ),
);

export type ConfigFile = v.InferOutput<typeof ConfigSchema>;
export type AdAccountEntry = v.InferOutput<typeof AdAccountSchema>;
export type MetricEntry = v.InferOutput<typeof MetricSchema>;
export type BaseMetricEntry = v.InferOutput<typeof BaseMetricSchema>;
export type SegmentEntry = v.InferOutput<typeof SegmentSchema>;
export type ReportEntry = v.InferOutput<typeof ReportSchema>;

/** A metric's unit when the file leaves it out. */
export const DEFAULT_UNIT: Record<(typeof METRIC_KINDS)[number], string> = {
  money: 'currency',
  count: 'count',
  percent: 'percent',
  ratio: 'ratio',
  decimal: 'number',
};
