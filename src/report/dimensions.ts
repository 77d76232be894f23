// docs/decisions.md §6: each grouping's dimension keys, which are also its query's first columns and the exports' first
// columns.
import type { Grouping } from './params.ts';

export const DIMENSION_KEYS: Record<Grouping, readonly string[]> = {
  total: [],
  campaign: ['campaignId', 'campaignName', 'adAccountId', 'externalId'],
  segment: ['segmentId', 'segmentName'],
  month: ['month'],
  'ad-account': ['adAccountId', 'adAccountName', 'platform'],
  video: ['creativeId', 'creativeName', 'campaignId', 'externalId'],
  creative: ['creativeId', 'creativeName', 'campaignId', 'externalId'],
};

/** The keys whose values are uuids: text that no export format needs to escape (rendered.ts). */
export const UUID_KEYS: ReadonlySet<string> = new Set(['campaignId', 'adAccountId', 'segmentId', 'creativeId']);
