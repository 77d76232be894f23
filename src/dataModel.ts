// The enumerations of the data model (docs/decisions.md §5), used everywhere they are checked or described; the SQL
// check constraints hold the same values (test/dataModel.test.ts).
export const PLATFORMS = ['google-ads', 'meta-ads', 'linkedin-ads', 'microsoft-ads', 'tiktok-ads'] as const;
export const CREATIVE_FORMATS = ['image', 'video', 'text', 'carousel'] as const;
export const CONNECTION_STATUSES = ['ok', 'expired', 'permission-lost'] as const;
export const CAMPAIGN_STATUSES = ['active', 'paused', 'archived'] as const;
export const METRIC_KINDS = ['money', 'count', 'percent', 'ratio', 'decimal'] as const;
export const REPORT_KINDS = ['standard', 'segment', 'months'] as const;
export const GROUPINGS = ['total', 'campaign', 'segment', 'month', 'ad-account', 'video', 'creative'] as const;
/** The public-API scopes a client may hold (docs/decisions.md §9). */
export const SCOPES = [
  'reports:read',
  'reports:data',
  'reports:export',
  'campaigns:read',
  'ad-accounts:read',
  'segments:read',
  'organizations:read',
] as const;
/** Where an exchange rate came from (migration 015). */
export const RATE_SOURCES = ['import', 'demo'] as const;

export type Platform = (typeof PLATFORMS)[number];
export type Grouping = (typeof GROUPINGS)[number];
export type Scope = (typeof SCOPES)[number];

/**
 * The built-in base metrics (docs/decisions.md §5), declared once: their definitions (report/metrics.ts), the import's
 * columns (cli/importFile.ts) and every list of them in SQL (store/baseLists.ts, sql/lattice/) are written from this
 * list. CONTRIBUTING.md, "Adding a base metric".
 */
/** count: a whole number (bigint); money: in the ad account's currency, converted; decimal: a fractional count. */
export type BaseKind = 'count' | 'money' | 'decimal';

export type BaseMetricDeclaration = {
  name: string;
  displayName: string;
  kind: BaseKind;
  /** Gated by plan: a plan without conversion metrics does not see it (docs/decisions.md §3). */
  conversionDerived: boolean;
  /** The catalogue's unit. */
  unit: string;
  description: string;
};

export const BASE_METRIC_DECLARATIONS = [
  {
    name: 'impressions',
    displayName: 'Impressions',
    kind: 'count',
    conversionDerived: false,
    unit: 'impressions',
    description: 'Times an ad was shown.',
  },
  {
    name: 'clicks',
    displayName: 'Clicks',
    kind: 'count',
    conversionDerived: false,
    unit: 'clicks',
    description: 'Clicks on an ad.',
  },
  {
    name: 'spend',
    displayName: 'Spend',
    kind: 'money',
    conversionDerived: false,
    unit: 'currency',
    description: "Amount spent, in the report's currency.",
  },
  {
    name: 'conversions',
    displayName: 'Conversions',
    kind: 'decimal',
    conversionDerived: true,
    unit: 'conversions',
    description: 'Conversions attributed to the ads.',
  },
  {
    name: 'conversion_value',
    displayName: 'Conversion value',
    kind: 'money',
    conversionDerived: true,
    unit: 'currency',
    description: "Value of the conversions, in the report's currency.",
  },
  {
    name: 'video_views',
    displayName: 'Video views',
    kind: 'count',
    conversionDerived: false,
    unit: 'views',
    description: 'Video views.',
  },
  {
    name: 'video_completions',
    displayName: 'Video completions',
    kind: 'count',
    conversionDerived: false,
    unit: 'completions',
    description: 'Videos watched to the end.',
  },
] as const satisfies readonly BaseMetricDeclaration[];

/** A base metric's column type in the facts and every table of sums. */
export const SQL_TYPE: Record<BaseKind, string> = {
  count: 'bigint',
  money: 'double precision',
  decimal: 'double precision',
};
