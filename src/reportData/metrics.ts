// The system metrics of DECISIONS §5: base sums, and ratios computed from a row's summed parts, never averaged.
import { evaluate, parseFormula, references, type Formula } from './formula.ts';

export const BASE_METRICS = ['impressions', 'clicks', 'spend', 'conversions', 'conversion_value', 'video_views', 'video_completions'] as const;
export type BaseMetric = (typeof BASE_METRICS)[number];
export type Sums = Record<BaseMetric, number>;

const ratio = (a: number, b: number, scale = 1) => (b === 0 ? null : (a / b) * scale);

type SystemMetric = { kind: string; conversionDerived: boolean; compute: (s: Sums) => number | null };

export const SYSTEM_METRICS: Record<string, SystemMetric> = {
  impressions: { kind: 'count', conversionDerived: false, compute: (s) => s.impressions },
  clicks: { kind: 'count', conversionDerived: false, compute: (s) => s.clicks },
  spend: { kind: 'money', conversionDerived: false, compute: (s) => s.spend },
  conversions: { kind: 'decimal', conversionDerived: true, compute: (s) => s.conversions },
  conversion_value: { kind: 'money', conversionDerived: true, compute: (s) => s.conversion_value },
  video_views: { kind: 'count', conversionDerived: false, compute: (s) => s.video_views },
  video_completions: { kind: 'count', conversionDerived: false, compute: (s) => s.video_completions },
  ctr: { kind: 'percent', conversionDerived: false, compute: (s) => ratio(s.clicks, s.impressions, 100) },
  cpc: { kind: 'money', conversionDerived: false, compute: (s) => ratio(s.spend, s.clicks) },
  cpm: { kind: 'money', conversionDerived: false, compute: (s) => ratio(s.spend, s.impressions, 1000) },
  cpa: { kind: 'money', conversionDerived: true, compute: (s) => ratio(s.spend, s.conversions) },
  conversion_rate: { kind: 'percent', conversionDerived: true, compute: (s) => ratio(s.conversions, s.clicks, 100) },
  roas: { kind: 'ratio', conversionDerived: true, compute: (s) => ratio(s.conversion_value, s.spend) },
  view_rate: { kind: 'percent', conversionDerived: false, compute: (s) => ratio(s.video_views, s.impressions, 100) },
  completion_rate: { kind: 'percent', conversionDerived: false, compute: (s) => ratio(s.video_completions, s.video_views, 100) },
};

export type CustomMetric = { name: string; formula: string };

/** A metric the request may return: a system one, or a custom one with its parsed formula. */
export type MetricPlan = { name: string; conversionDerived: boolean; formula?: Formula };

/** Every metric name an organization knows, with what it needs; a custom formula that cannot be parsed yields null. */
export function metricCatalogue(custom: CustomMetric[]): Map<string, MetricPlan> {
  const catalogue = new Map<string, MetricPlan>();
  for (const [name, metric] of Object.entries(SYSTEM_METRICS)) catalogue.set(name, { name, conversionDerived: metric.conversionDerived });
  for (const { name, formula } of custom) {
    if (catalogue.has(name)) continue;
    let tree: Formula;
    try {
      tree = parseFormula(formula);
    } catch {
      tree = { op: 'ref', name: '__invalid__' };
    }
    // A formula over a conversion metric is itself conversion-derived: a plan without them must not see it.
    const derived = references(tree).some((ref) => SYSTEM_METRICS[ref]?.conversionDerived ?? false);
    catalogue.set(name, { name, conversionDerived: derived, formula: tree });
  }
  return catalogue;
}

/** Removes float noise (0.1 + 0.2) while keeping six decimals. */
const tidy = (value: number | null) => (value === null || !Number.isFinite(value) ? null : Math.round(value * 1e6) / 1e6);

/** Writes one row's metrics, in the order asked, into `out` from `at`: every system one only when a formula needs it. */
export function writeMetrics(sums: Sums, metrics: MetricPlan[], out: unknown[], at: number): void {
  let system: Record<string, number | null> | undefined;
  for (let i = 0; i < metrics.length; i++) {
    const metric = metrics[i];
    if (metric.formula) {
      if (!system) {
        system = {};
        for (const [name, m] of Object.entries(SYSTEM_METRICS)) system[name] = m.compute(sums);
      }
      out[at + i] = tidy(evaluate(metric.formula, system));
    } else {
      out[at + i] = tidy(SYSTEM_METRICS[metric.name].compute(sums));
    }
  }
}

/** The metrics object of one row: only the metrics asked for. */
export function rowMetrics(sums: Sums, metrics: MetricPlan[]): Record<string, number | null> {
  const values: (number | null)[] = [];
  writeMetrics(sums, metrics, values, 0);
  const out: Record<string, number | null> = {};
  for (let i = 0; i < metrics.length; i++) out[metrics[i].name] = values[i];
  return out;
}
