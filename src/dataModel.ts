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
