// Declared base metrics in an answer (docs/decisions.md §5): their sums beside a grouping's rows. They are summed from
// the facts' `declared` numbers (migration 047) over the answer's range, by the grouping's key and period, each day's
// money converted at that day's rate (§11): the same rows and the same rules as the grouping's own sums, which come
// from the rollups. A slot past a fact's numbers, or a fact written before any was declared, reads as 0.
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

/** Where a grouping's query takes its parameters (report/query.ts groupingParams). */
export type Placed = { interval?: number; segments?: number };

/**
 * rows (a grouping's query, its columns as shape says, ordered by order) with a column for each of sums, in the same
 * order. The sums' own query takes the grouping's parameters: $1 ad accounts, $2 campaigns, $3 from, $4 to, $5 the
 * report's currency, and where placed says, the interval and the segments.
 */
export function withDeclared(
  rows: string,
  grouping: Grouping,
  sums: DeclaredSum[],
  placed: Placed,
  order: string[],
): string {
  const keyed = KEYED[grouping];
  const period =
    placed.interval === undefined
      ? null
      : `to_char(period_start($${placed.interval}, f.day), ` +
        `case when $${placed.interval} = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end)`;
  const keys = [...(period ? [{ column: 'period', of: period }] : []), ...(keyed ? [keyed] : [])];
  const money = sums.some((sum) => sum.money);
  // A fact's number in slot, as a double; money in the report's currency (null: no rate on or before its day).
  const value = (sum: DeclaredSum) => `coalesce(f.declared[${sum.slot}], 0)${sum.money ? ' * x.factor' : ''}`;
  const summed = sums.map((sum) =>
    sum.money
      ? `case when count(*) = count(x.factor) then sum(${value(sum)}) end as ${sum.column}`
      : `sum(${value(sum)}) as ${sum.column}`,
  );
  const joins = [
    ...(grouping === 'segment' ? [`join segment_campaigns sc on sc.campaign_id = f.campaign_id`] : []),
    ...(grouping === 'video' ? [`join creatives cr on cr.id = f.creative_id and cr.format = 'video'`] : []),
    ...(money
      ? [
          'join ad_accounts a on a.id = f.ad_account_id',
          'cross join lateral (select fx_factor(a.currency, $5, f.day) as factor) x',
        ]
      : []),
  ];
  const where = [
    'f.ad_account_id = any($1)',
    '($2::uuid[] is null or f.campaign_id = any($2))',
    'f.day >= $3 and f.day <= $4',
    ...(grouping === 'segment' ? [`sc.segment_id = any($${placed.segments}::uuid[])`] : []),
  ];
  const sumsQuery =
    `select ${[...keys.map((k, i) => `${k.of} as _k${i}`), 'count(*) as _facts', ...summed].join(', ')} ` +
    `from facts f ${joins.join(' ')} where ${where.join(' and ')}` +
    (keys.length ? ` group by ${keys.map((_, i) => `_k${i}`).join(', ')}` : '');
  // A row without facts (a total of nothing) sums to 0, as the grouping's own sums do; null money stays null.
  const columns = sums.map((sum) =>
    sum.money
      ? `case when d._facts is null then 0 else d.${sum.column} end as ${sum.column}`
      : `coalesce(d.${sum.column}, 0) as ${sum.column}`,
  );
  const on = keys.map((k, i) => `g.${quoted(k.column)} = d._k${i}`).join(' and ');
  const join = keys.length ? `left join (${sumsQuery}) d on ${on}` : `cross join (${sumsQuery}) d`;
  return (
    `select g.*, ${columns.join(', ')} from (\n${rows}\n) g ${join}` +
    (order.length ? ` order by ${order.map((key) => `g.${quoted(key)}`).join(', ')}` : '')
  );
}
