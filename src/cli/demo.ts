// `demo`: a deterministic demo organization (and a second one beside it) with its data and its client. It holds the
// 430 days before today, and always December 2025 to March 2026 (FIXED), whose days the documents' examples read: their
// answers are the same whatever the day (test/documentAnswers.test.ts).
import type { Sql } from '../store/database.ts';
import { factsTransaction } from '../store/factWrites.ts';
import { query, type Queryable } from '../store/queries.ts';
import { SCOPES } from '../auth/scopes.ts';
import { CREATIVE_FORMATS } from '../dataModel.ts';
import { hashSecret, newClientId, newClientSecret } from '../auth/secrets.ts';
import { readFlags, type Parsed } from './args.ts';
import { deleteOrganization } from './org.ts';
import { result } from './output.ts';

const DAYS = 430;
/** The days every demo holds, whenever it is made; cut at yesterday by a clock set before them (tests). */
export const FIXED = { from: '2025-12-01', to: '2026-03-31' } as const;

/** A stable UUID for a demo label, so every run names the same rows. */
async function demoId(label: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`readout-demo:${label}`)),
  );
  digest[6] = (digest[6] & 0x0f) | 0x40;
  digest[8] = (digest[8] & 0x3f) | 0x80;
  const hex = Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

type Account = {
  key: string;
  platform: string;
  name: string;
  currency: string;
  status: string;
  campaigns: [string, string][];
};

const ACCOUNTS: Account[] = [
  {
    key: 'google',
    platform: 'google-ads',
    name: 'Google Ads – Search',
    currency: 'USD',
    status: 'ok',
    campaigns: [
      ['Brand search', 'active'],
      ['Generic search', 'active'],
      ['Competitor terms', 'paused'],
      ['Shopping, "Holiday" sale', 'archived'],
    ],
  },
  {
    key: 'meta',
    platform: 'meta-ads',
    name: 'Meta Ads – Europe',
    currency: 'EUR',
    status: 'ok',
    campaigns: [
      ['Prospecting EU', 'active'],
      ['Retargeting EU', 'active'],
      ['Video awareness EU', 'active'],
    ],
  },
  {
    key: 'linkedin',
    platform: 'linkedin-ads',
    name: 'LinkedIn Ads – UK',
    currency: 'GBP',
    status: 'ok',
    campaigns: [
      ['Decision makers UK', 'active'],
      ['Webinar sign-ups', 'paused'],
    ],
  },
  {
    key: 'tiktok',
    platform: 'tiktok-ads',
    name: 'TikTok Ads',
    currency: 'USD',
    status: 'expired',
    campaigns: [
      ['Creator collabs', 'paused'],
      ['Spark ads', 'paused'],
    ],
  },
];
const FORMATS = CREATIVE_FORMATS;
const SEGMENTS: [string, string, (campaign: string) => boolean][] = [
  ['Brand', 'Campaigns that protect and grow the brand', (c) => /Brand|awareness|Creator/.test(c)],
  [
    'Performance',
    'Campaigns measured on conversions',
    (c) => /search|Retargeting|Shopping|Prospecting|Webinar|Spark/i.test(c),
  ],
  ['Video', 'Video-first campaigns', (c) => /Video|Creator|Spark/.test(c)],
];
const FX: [string, number][] = [
  ['EUR', 1.08],
  ['GBP', 1.27],
];

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function upsertOrganization(tx: Queryable, id: string, name: string, currency: string, plan: string) {
  await query(tx, 'demo-add-organization', { id, name, currency });
  await query(tx, 'demo-add-subscription', { org: id, plan });
}

/** Builds (or tops up) the demo data; returns the demo organization and its reports. */
async function seed(tx: Queryable, now: number) {
  const org = await demoId('org');
  const other = await demoId('other-org');
  await upsertOrganization(tx, org, 'Readout Demo', 'USD', 'enterprise');
  await upsertOrganization(tx, other, 'Other Company', 'EUR', 'business');

  const { accountIds, campaignIds } = await seedAccounts(tx, org, other);
  const segmentIds = await seedSegments(tx, org, campaignIds);
  for (const [name, display, kind, unit, formula] of [
    ['cost_per_view', 'Cost per view', 'money', 'currency', 'spend / video_views'],
    ['engagement_rate', 'Engagement rate', 'percent', 'percent', '(clicks + video_views) / impressions * 100'],
  ]) {
    await query(tx, 'demo-add-custom-metric', {
      org,
      name,
      displayName: display,
      kind,
      unit,
      description: `Custom: ${formula}`,
      formula,
    });
  }

  const reportIds = await seedReports(tx, org, other, accountIds, segmentIds);
  // Facts end yesterday (UTC); a later run adds the days since. The fixed days are there too, and no day twice.
  const last = isoDay(now - 86_400_000);
  const first = isoDay(now - DAYS * 86_400_000);
  const fixedTo = [FIXED.to, last].sort()[0]; // the earlier: ISO days sort as they fall
  for (const owner of [org, other]) {
    if (FIXED.from <= fixedTo && fixedTo < first)
      await query(tx, 'generate-facts', { org: owner, from: FIXED.from, to: fixedTo });
    await query(tx, 'generate-facts', {
      org: owner,
      from: first < FIXED.from || fixedTo < first ? first : FIXED.from,
      to: last,
    });
  }
  const ratesFrom = isoDay(Math.min(Date.parse(first), Date.parse(FIXED.from)) - 30 * 86_400_000);
  for (const [currency, rate] of FX)
    await query(tx, 'generate-fx-rates', { currency, from: ratesFrom, to: last, usdPerUnit: rate });
  await query(tx, 'mark-fetched', { adAccounts: Object.values(accountIds), at: new Date(now) });
  return { org, reportIds };
}

/** The demo's ad accounts, their campaigns and three creatives each, and Other Company's account. */
async function seedAccounts(tx: Queryable, org: string, other: string) {
  const accountIds: Record<string, string> = {};
  const campaignIds: [string, string][] = [];
  for (const account of [
    ...ACCOUNTS,
    {
      key: 'other',
      platform: 'google-ads',
      name: 'Other Company Ads',
      currency: 'EUR',
      status: 'ok',
      campaigns: [['Other campaign', 'active']],
    } as Account,
  ]) {
    const owner = account.key === 'other' ? other : org;
    const id = (accountIds[account.key] = await demoId(`account:${account.key}`));
    const externalId = `${account.key.toUpperCase()}-${id.slice(0, 8)}`;
    await query(tx, 'demo-add-ad-account', {
      id,
      org: owner,
      platform: account.platform,
      externalId,
      name: account.name,
      currency: account.currency,
      status: account.status,
    });
    for (const [index, [name, status]] of account.campaigns.entries()) {
      const campaign = await demoId(`campaign:${account.key}:${name}`);
      campaignIds.push([campaign, name]);
      await query(tx, 'demo-add-campaign', {
        id: campaign,
        org: owner,
        adAccount: id,
        externalId: String(100_000 + index),
        name,
        status,
      });
      for (let n = 0; n < 3; n++) {
        const format = /Video|Creator|Spark/.test(name) && n < 2 ? 'video' : FORMATS[(index + n) % FORMATS.length];
        const creative = await demoId(`creative:${campaign}:${n}`);
        await query(tx, 'demo-add-creative', {
          id: creative,
          org: owner,
          campaign,
          externalId: `cr-${n + 1}`,
          name: `${name} – ${format} ${n + 1}`,
          format,
        });
      }
    }
  }

  return { accountIds, campaignIds };
}

/** The demo's segments, each with the campaigns whose name it takes. */
async function seedSegments(tx: Queryable, org: string, campaignIds: [string, string][]) {
  const segmentIds: string[] = [];
  for (const [name, description, member] of SEGMENTS) {
    const id = await demoId(`segment:${name}`);
    segmentIds.push(id);
    await query(tx, 'demo-add-segment', { id, org, name, description });
    for (const [campaign, campaignName] of campaignIds) {
      if (!member(campaignName) || campaignName === 'Other campaign') continue;
      await query(tx, 'demo-add-segment-campaign', { org, segment: id, campaign });
    }
  }

  return segmentIds;
}

/**
 * The demo's five reports: accounts `all` are the demo's four, otherwise those named by key; `segments` reads the
 * demo's segments.
 */
const DEMO_REPORTS: {
  key: string;
  name: string;
  kind: string;
  currency: string;
  accounts: 'all' | string[];
  metrics: string[];
  groupings: string[];
  segments?: true;
}[] = [
  {
    key: 'cross-channel',
    name: 'Cross-channel performance',
    kind: 'standard',
    currency: 'USD',
    accounts: 'all',
    metrics: [
      'impressions',
      'clicks',
      'spend',
      'conversions',
      'conversion_value',
      'ctr',
      'cpc',
      'cpm',
      'cpa',
      'roas',
      'engagement_rate',
    ],
    groupings: ['total', 'campaign', 'month', 'ad-account', 'creative'],
  },
  {
    key: 'video',
    name: 'Video performance',
    kind: 'standard',
    currency: 'USD',
    accounts: 'all',
    metrics: [
      'impressions',
      'spend',
      'video_views',
      'video_completions',
      'view_rate',
      'completion_rate',
      'cost_per_view',
    ],
    groupings: ['total', 'campaign', 'video', 'creative', 'month'],
  },
  {
    key: 'segments',
    name: 'Segment overview',
    kind: 'segment',
    currency: 'USD',
    accounts: 'all',
    metrics: ['impressions', 'clicks', 'spend', 'conversions', 'ctr', 'cpa'],
    groupings: ['total', 'segment', 'campaign', 'month'],
    segments: true,
  },
  {
    key: 'monthly',
    name: 'Monthly spend',
    kind: 'months',
    currency: 'USD',
    accounts: 'all',
    metrics: ['spend', 'impressions', 'clicks', 'cpc'],
    groupings: ['total', 'month', 'ad-account'],
  },
  {
    key: 'europe',
    name: 'Europe in EUR',
    kind: 'standard',
    currency: 'EUR',
    accounts: ['meta', 'linkedin'],
    metrics: ['impressions', 'clicks', 'spend', 'ctr', 'cpc'],
    groupings: ['total', 'campaign', 'ad-account', 'month'],
  },
];

/** The demo's five reports, and Other Company's one. */
async function seedReports(
  tx: Queryable,
  org: string,
  other: string,
  accountIds: Record<string, string>,
  segmentIds: string[],
) {
  const reportIds: string[] = [];
  for (const { key, name, kind, currency, metrics, groupings, ...report } of DEMO_REPORTS) {
    const accounts =
      report.accounts === 'all' ? ACCOUNTS.map((a) => accountIds[a.key]) : report.accounts.map((k) => accountIds[k]);
    const segments = report.segments ? segmentIds : [];
    const id = await demoId(`report:${key}`);
    reportIds.push(id);
    await query(tx, 'demo-add-report', {
      id,
      org,
      name,
      description: `Demo report: ${name.toLowerCase()}`,
      kind,
      currency,
      metrics,
      groupings,
    });
    for (const account of accounts) {
      await query(tx, 'demo-add-report-ad-account', { org, report: id, adAccount: account });
    }
    for (const segment of segments) {
      await query(tx, 'demo-add-report-segment', { org, report: id, segment });
    }
  }
  const otherReport = await demoId('report:other');
  const plain = ['impressions', 'clicks', 'spend', 'ctr', 'cpc'];
  const everyGrouping = ['total', 'campaign', 'month', 'ad-account', 'video', 'creative'];
  await query(tx, 'demo-add-report', {
    id: otherReport,
    org: other,
    name: 'Other Company report',
    description: '',
    kind: 'standard',
    currency: 'EUR',
    metrics: plain,
    groupings: everyGrouping,
  });
  await query(tx, 'demo-add-report-ad-account', { org: other, report: otherReport, adAccount: accountIds.other });

  return reportIds;
}

/** `demo --remove`: the demo organizations deleted with everything they own; the rest of the database untouched. */
async function removeDemo(sql: Sql) {
  const existing: string[] = [];
  for (const id of [await demoId('org'), await demoId('other-org')]) {
    if ((await query(sql, 'get-organization', { id })).length === 0) continue;
    await deleteOrganization(sql, id);
    existing.push(id);
  }
  return result(
    { removed: existing },
    existing.length ? `demo organizations removed: ${existing.join(', ')}` : 'no demo organization to remove',
  );
}

/** The demo organization and its client's fresh secret (what `readout demo` prints, and a first start shows). */
export type DemoCredentials = { organizationId: string; reportIds: string[]; clientId: string; clientSecret: string };

/** Creates the demo organization, or tops it up, and issues its client a fresh secret. */
export async function seedDemo(sql: Sql, now: number): Promise<DemoCredentials> {
  const out = await factsTransaction(sql, async (tx) => {
    await query(tx, 'demo-lock');
    const { org, reportIds } = await seed(tx, now);
    const [existing] = await query(tx, 'find-demo-client', { org });
    const clientId = existing?.id ?? newClientId();
    if (!existing) {
      await query(tx, 'create-client', {
        id: clientId,
        org,
        name: 'Demo client',
        scopes: [...SCOPES],
        reportsAll: true,
        reportIds: [],
        adAccountsAll: true,
        adAccountIds: [],
      });
    }
    const clientSecret = newClientSecret();
    await query(tx, 'create-client-secret', {
      client: clientId,
      hash: (await hashSecret(clientSecret)) as never,
      expires: null,
    });
    return { organizationId: org, reportIds, clientId, clientSecret };
  });
  return out;
}

export async function demo(sql: Sql, { flags }: Parsed, now: number) {
  if (readFlags(flags, [], ['remove']).remove !== undefined) return removeDemo(sql);
  const out = await seedDemo(sql, now);
  return result(
    out,
    [
      `demo organization ${out.organizationId}`,
      `reports ${out.reportIds.join(', ')}`,
      `client ${out.clientId}`,
      `secret ${out.clientSecret}  (shown this once)`,
      'also "Other Company", a second organization the demo client must never see (try a request for its report: 404)',
    ].join('\n'),
  );
}
