// An organization's catalogue as the database holds it, in the file's terms (schema.ts) plus the ids apply writes to.
import { query, queryAs, type Queryable } from '../store/queries.ts';

export type StoredAccount = {
  id: string;
  platform: string;
  externalId: string;
  name: string;
  currency: string;
  timeZone: string;
};
export type StoredMetric = {
  id: string;
  name: string;
  displayName: string;
  kind: string;
  unit: string;
  description: string;
  formula: string;
};
/** A declared base metric (docs/decisions.md §5): its slot is its place in a fact's `declared` numbers. */
export type StoredBaseMetric = {
  id: string;
  name: string;
  displayName: string;
  kind: 'count' | 'money';
  whole: boolean | null;
  conversionDerived: boolean;
  description: string;
  slot: number;
};
export type StoredSegment = { id: string; name: string; description: string; campaigns: string[] };
export type StoredReport = {
  id: string;
  name: string;
  description: string;
  kind: string;
  currency: string;
  adAccounts: string[];
  segments: string[];
  metrics: string[];
  groupings: string[];
};

export type Stored = {
  adAccounts: StoredAccount[];
  baseMetrics: StoredBaseMetric[];
  metrics: StoredMetric[];
  segments: StoredSegment[];
  reports: StoredReport[];
  /** Campaign ids by platform/accountExternalId/campaignExternalId. */
  campaigns: Map<string, string>;
  systemMetrics: Map<string, { conversionDerived: boolean }>;
};

export async function readStored(sql: Queryable, org: string): Promise<Stored> {
  const [[lists], campaigns, [system]] = await Promise.all([
    // JSON PostgreSQL does not describe: typed here.
    queryAs<Omit<Stored, 'campaigns' | 'systemMetrics'>>(sql, 'catalogue-read', { org }),
    query(sql, 'catalogue-campaigns', { org }),
    queryAs<{ items: { name: string; conversionDerived: boolean }[] }>(sql, 'list-system-metrics', {
      page: 1,
      size: 1000,
    }),
  ]);
  return {
    ...lists,
    campaigns: new Map(campaigns.map((c) => [c.key, c.id])),
    systemMetrics: new Map(system.items.map((m) => [m.name, { conversionDerived: m.conversionDerived }])),
  };
}
