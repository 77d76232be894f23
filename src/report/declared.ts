// Declared base metrics in an answer (docs/decisions.md §5): their sums beside a grouping's rows, by the grouping's
// key and period, each day's money converted at that day's rate (§11): the same rules as the grouping's own sums.
// They are read from their own sums by account, campaign or creative (migrations 048, 050) and the facts' `declared`
// numbers (047). A slot past a fact's numbers, or a fact written before any was declared, reads as 0.
import { references } from './formula.ts';
import type { DeclaredSum, MetricPlan } from './metrics.ts';
import type { Grouping } from './params.ts';
import { quoted } from './formats/rendered.ts';

/** The declared base metrics whose sums metrics use (their own, or through a custom formula), each once. */
export function declaredUsed(metrics: MetricPlan[], catalogue: ReadonlyMap<string, MetricPlan>): DeclaredSum[] {
  const used = new Set(metrics.flatMap((metric) => (metric.formula ? references(metric.formula) : [])));
  return [...catalogue.values()].flatMap((plan) =>
    plan.declared && used.has(plan.declared.column) ? [plan.declared] : [],
  );
}

/** How a grouping's rows are keyed: the key column its query gives, and the same of a fact. */
const KEYED: Record<Grouping, { column: string; of: string } | null> = {
  total: null,
  campaign: { column: 'campaignId', of: 'f.campaign_id' },
  segment: { column: 'segmentId', of: 'sc.segment_id' },
  month: { column: 'month', of: `to_char(date_trunc('month', f.day), 'YYYY-MM')` },
  'ad-account': { column: 'adAccountId', of: 'f.ad_account_id' },
  video: { column: 'creativeId', of: 'f.creative_id' },
  creative: { column: 'creativeId', of: 'f.creative_id' },
};

/**
 * The first day of the range's first whole month, and the first day after its last whole month, never before the
 * first (migration 025's functions, as the built-in sums' readers bound their months).
 */
const WHOLE_MONTHS_FROM = 'first_full_month(:from)';
const WHOLE_MONTHS_TO = 'after_full_month(:from, :to)';

/**
 * Where a level's sums are kept: by day (facts for creatives), by month, over spans (migrations 052, 053; none by
 * account), and the key columns of each row.
 */
const LEVELS = {
  account: {
    daily: 'declared_account_daily',
    monthly: 'declared_account_monthly',
    spans: null,
    keys: 'u.ad_account_id',
  },
  campaign: {
    daily: 'declared_campaign_daily',
    monthly: 'declared_campaign_monthly',
    spans: 'declared_campaign_spans',
    keys: 'u.ad_account_id, u.campaign_id',
  },
  creative: {
    daily: 'facts',
    monthly: 'declared_creative_monthly',
    spans: 'declared_creative_spans',
    keys: 'u.ad_account_id, u.campaign_id, u.creative_id',
  },
};

/**
 * The rows the sums are made of, each with its keys (account, and campaign or creative), day (a month's first for a
 * month's row), the numbers of slots (d1 to d8: those the answer sums) and the factor of its money into the report's
 * currency (null: no rate on or before its day). An account's sums (migration 050) for total, month and ad-account,
 * unless the report reads only some campaigns (campaigns: a segment report); a campaign's (048), over spans where the
 * answer has no periods (052); a creative's, its facts by day (047), its months (050), and its spans likewise (053).
 * A whole month of an account in the report's currency comes from the month's row where the answer's periods hold
 * whole months, every other day from the day's.
 */
function units(grouping: Grouping, interval: string | undefined, campaigns: boolean, slots: number[]): string {
  const months = interval === undefined || interval === 'month';
  // Spans cross months and weeks: only an answer with neither reads them.
  const spans = interval === undefined && grouping !== 'month';
  const level =
    grouping === 'video' || grouping === 'creative'
      ? LEVELS.creative
      : !campaigns && (grouping === 'total' || grouping === 'month' || grouping === 'ad-account')
        ? LEVELS.account
        : LEVELS.campaign;
  const accounts = 'join ad_accounts a on a.id = u.ad_account_id';
  const within =
    (level === LEVELS.account ? '' : '(:campaignIds::uuid[] is null or u.campaign_id = any(:campaignIds)) and ') +
    'u.ad_account_id = any(:accountIds)';
  // Only the slots the answer sums: every row of a long range reads them.
  const kept = slots.map((slot) => `u.d${slot}`).join(', ');
  const numbers =
    level === LEVELS.creative ? slots.map((slot) => `coalesce(u.declared[${slot}], 0) as d${slot}`).join(', ') : kept;
  // A day of an account in another currency is converted at that day's rate, worked out once a currency and day
  // (materialized), not once a row: a long range of creatives is a row a creative and day.
  const factors =
    'factors as materialized (select c.currency, d::date as day, fx_factor(c.currency, :currency, d::date) as factor ' +
    'from (select distinct currency from ad_accounts where id = any(:accountIds) and currency <> :currency) c ' +
    "cross join generate_series(:from::date, :to::date, interval '1 day') d)";
  const day = (where: string, converted = false) =>
    `select ${level.keys}, u.day, ${numbers}, ${converted ? 'x.factor' : '1::float8'} as factor ` +
    `from ${level.daily} u ${accounts} ` +
    (converted ? 'join factors x on x.currency = a.currency and x.day = u.day ' : '') +
    `where ${within} and u.day >= :from and u.day <= :to and ${where}`;
  const converted = day('a.currency <> :currency', true);
  if (spans && level.spans) {
    // The range cut into the built-in sums' spans (report_span_pieces): an account in the report's currency from its
    // campaigns' or creatives' spans and its single days; the others a day at a time, converted.
    return (
      `with pieces as materialized (select p.level, p.start from report_span_pieces(:accountIds, :from, :to) p), ` +
      `${factors} ` +
      // A piece's spans read through the key a piece at a time (offset 0 keeps it so): guessing a thousand pieces,
      // PostgreSQL would hash them against every span kept.
      `select ${level.keys}, p.start as day, ${kept}, 1::float8 as factor from pieces p ` +
      `cross join lateral (select * from ${level.spans} u where u.ad_account_id = any(:accountIds) ` +
      `and u.level = p.level and u.start = p.start offset 0) u ${accounts} ` +
      `where p.level > 0 and ${within} and a.currency = :currency ` +
      `union all ${day('a.currency = :currency and u.day in (select p.start from pieces p where p.level = 0)')} ` +
      `union all ${converted}`
    );
  }
  if (!months) return `with ${factors} ${day('a.currency = :currency')} union all ${converted}`;
  // Each a range of the days' key: the days of accounts in other currencies, then the days before and after the
  // whole months of those in the report's.
  return `with ${factors} ${[
    converted,
    day(`a.currency = :currency and u.day < ${WHOLE_MONTHS_FROM}`),
    day(`a.currency = :currency and u.day >= ${WHOLE_MONTHS_TO}`),
    `select ${level.keys}, u.month as day, ${kept}, 1::float8 as factor ` +
      `from ${level.monthly} u ${accounts} where ${within} and a.currency = :currency ` +
      `and u.month >= ${WHOLE_MONTHS_FROM} and u.month < ${WHOLE_MONTHS_TO}`,
  ].join(' union all ')}`;
}

/**
 * rows (a grouping's query, its columns as shape says, ordered by order) with a column for each of sums, in the same
 * order. The sums' own query takes the grouping's parameters by their names (report/query.ts groupingParams).
 */
export function withDeclared(
  rows: string,
  grouping: Grouping,
  sums: DeclaredSum[],
  order: string[],
  interval: string | undefined,
  campaigns: boolean,
): string {
  const keyed = KEYED[grouping];
  const period =
    interval === undefined
      ? null
      : `to_char(period_start(:interval, f.day), case when :interval = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end)`;
  const keys = [...(period ? [{ column: 'period', of: period }] : []), ...(keyed ? [keyed] : [])];
  // A number of a day's (or a month's) row, as a double; money in the report's currency.
  const value = (sum: DeclaredSum) => `f.d${sum.slot}${sum.money ? ' * f.factor' : ''}`;
  const summed = sums.map((sum) =>
    sum.money
      ? `case when count(*) = count(f.factor) then sum(${value(sum)}) end as ${sum.column}`
      : `sum(${value(sum)}) as ${sum.column}`,
  );
  const join =
    grouping === 'segment'
      ? 'join segment_campaigns sc on sc.campaign_id = f.campaign_id ' + 'and sc.segment_id = any(:segmentIds::uuid[])'
      : grouping === 'video'
        ? `join creatives cr on cr.id = f.creative_id and cr.format = 'video'`
        : '';
  const sumsQuery =
    `select ${[...keys.map((k, i) => `${k.of} as _k${i}`), 'count(*) as _rows', ...summed].join(', ')} ` +
    `from (${units(grouping, interval, campaigns, [...new Set(sums.map((sum) => sum.slot))])}) f ${join}` +
    (keys.length ? ` group by ${keys.map((_, i) => `_k${i}`).join(', ')}` : '');
  if (keys.length === 0) {
    // One row each side (a total): its sums, 0 for no rows, as the grouping's own; null money stays null.
    const columns = sums.map((sum) =>
      sum.money
        ? `case when d._rows = 0 then 0 else d.${sum.column} end as ${sum.column}`
        : `coalesce(d.${sum.column}, 0) as ${sum.column}`,
    );
    return `select g.*, ${columns.join(', ')} from (\n${rows}\n) g cross join (${sumsQuery}) d`;
  }
  // Each key's sums in one object, built once and read a row at a time: joined instead, PostgreSQL guessed 200 keys a
  // side and compared every pair (BENCHMARKS.md, "Declared base metrics"). The numbers go as their shortest exact text.
  const key = (of: (k: { column: string }, i: number) => string) => keys.map(of).join(` || '|' || `);
  const object =
    `select jsonb_object_agg(${key((_, i) => `d._k${i}::text`)}, ` +
    `jsonb_build_array(${sums.map((sum) => `d.${sum.column}::text`).join(', ')})) as sums from (${sumsQuery}) d`;
  // A row of no declared numbers (a key the object lacks) sums to 0; null money stays null.
  const columns = sums.map((sum, i) =>
    sum.money
      ? `case when e.v is null then 0 else (e.v ->> ${i})::float8 end as ${sum.column}`
      : `coalesce((e.v ->> ${i})::float8, 0) as ${sum.column}`,
  );
  const lookup = `cross join lateral (select o.sums -> (${key((k) => `g.${quoted(k.column)}::text`)}) as v) e`;
  return (
    `select g.*, ${columns.join(', ')} from (\n${rows}\n) g cross join (${object}) o ${lookup}` +
    (order.length ? ` order by ${order.map((k) => `g.${quoted(k)}`).join(', ')}` : '')
  );
}
