// The response bodies as valibot schemas: the types the handlers answer with, checked against spec/openapi.json.
import * as v from 'valibot';
import { CAMPAIGN_STATUSES, CONNECTION_STATUSES, METRIC_KINDS, PLATFORMS, REPORT_KINDS } from '../dataModel.ts';
import { GROUPINGS } from '../report/params.ts';
import { SCOPES } from '../auth/scopes.ts';

const uuid = v.pipe(v.string(), v.uuid());
const dateTime = v.pipe(v.string(), v.isoTimestamp());
const date = v.pipe(v.string(), v.isoDate());
const currency = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const Health = v.object({ status: v.picklist(['ok', 'unavailable']), version: v.string() });

export const Problem = v.object({
  type: v.pipe(v.string(), v.url()),
  title: v.string(),
  status: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)),
  detail: v.string(),
  instance: v.string(),
  traceId: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)),
  retryAfterSeconds: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

export const TokenResponse = v.object({
  access_token: v.string(),
  token_type: v.picklist(['Bearer']),
  expires_in: v.pipe(v.number(), v.integer(), v.minValue(1)),
  scope: v.string(),
});

export const TokenError = v.object({
  error: v.picklist([
    'invalid_request',
    'invalid_client',
    'invalid_grant',
    'unsupported_grant_type',
    'invalid_scope',
    'temporarily_unavailable',
    'server_error',
  ]),
  error_description: v.string(),
});

const allowListSize = v.union([count, v.picklist(['all'])]);

export const Me = v.object({
  clientId: v.string(),
  organizationId: uuid,
  scopes: v.array(v.picklist(SCOPES)),
  plan: v.object({ code: v.string(), state: v.picklist(['healthy', 'stale', 'unknown']) }),
  quota: v.object({
    limitPerHour: count,
    remaining: count,
    resetAt: dateTime,
    state: v.picklist(['ok', 'unavailable']),
  }),
  allowList: v.object({ reports: allowListSize, adAccounts: allowListSize }),
  nearestSecretExpiry: v.nullable(dateTime),
});

export const Organization = v.object({
  id: uuid,
  name: v.string(),
  currency,
  timeZone: v.string(),
  createdAt: dateTime,
});

export const AdAccount = v.object({
  id: uuid,
  organizationId: uuid,
  platform: v.picklist(PLATFORMS),
  externalId: v.string(),
  name: v.string(),
  currency,
  timeZone: v.string(),
  connectionStatus: v.picklist(CONNECTION_STATUSES),
  lastFetchedAt: v.nullable(dateTime),
});

export const Campaign = v.object({
  id: uuid,
  organizationId: uuid,
  adAccountId: uuid,
  externalId: v.string(),
  name: v.string(),
  status: v.picklist(CAMPAIGN_STATUSES),
  platform: v.picklist(PLATFORMS),
});

export const Segment = v.object({
  id: uuid,
  organizationId: uuid,
  name: v.string(),
  description: v.string(),
  campaignCount: count,
});

export const Metric = v.object({
  name: v.string(),
  displayName: v.string(),
  kind: v.picklist(METRIC_KINDS),
  unit: v.string(),
  system: v.boolean(),
  conversionDerived: v.boolean(),
  description: v.string(),
  formula: v.optional(v.string()),
});

export const Report = v.object({
  id: uuid,
  organizationId: uuid,
  name: v.string(),
  description: v.string(),
  kind: v.picklist(REPORT_KINDS),
  currency,
  adAccountIds: v.array(uuid),
  segmentIds: v.array(uuid),
  metrics: v.array(v.string()),
  groupings: v.array(v.picklist(GROUPINGS)),
  createdAt: dateTime,
  updatedAt: dateTime,
});

const MetricValues = v.record(v.string(), v.nullable(v.number()));

/** docs/decisions.md §6: a row's or the summary's metrics over the comparison range. */
const Compared = v.object({ metrics: MetricValues });

export const DataRow = v.object({
  dimensions: v.record(v.string(), v.string()),
  metrics: MetricValues,
  compare: v.optional(Compared),
});

export const DataSummary = v.object({ metrics: MetricValues, compare: v.optional(Compared) });

export const DataRecord = v.object({
  reportId: uuid,
  groupBy: v.picklist(GROUPINGS),
  currency,
  dateFrom: date,
  dateTo: date,
  compareFrom: v.optional(date),
  compareTo: v.optional(date),
  metrics: v.array(v.string()),
  dataFreshness: v.nullable(dateTime),
  rows: v.array(DataRow),
  summary: v.optional(DataSummary),
});

export const PageEnvelope = v.object({
  data: v.array(v.unknown()),
  page: v.pipe(v.number(), v.integer(), v.minValue(1)),
  pageSize: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200)),
  totalCount: count,
  hasMore: v.boolean(),
});

/** Every schema by its name in the document's components. */
export const RESPONSE_SCHEMAS = {
  Health,
  Problem,
  TokenResponse,
  TokenError,
  Me,
  Organization,
  AdAccount,
  Campaign,
  Segment,
  Metric,
  Report,
  DataRow,
  DataSummary,
  DataRecord,
  PageEnvelope,
};
