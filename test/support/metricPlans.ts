// Metrics an answer may ask for, for property tests of its formats: any system metrics in any order, and perhaps a
// custom one after them.
import fc from 'fast-check';
import { parseFormula } from '../../src/report/formula.ts';
import { SYSTEM_METRICS, type MetricPlan } from '../../src/report/metrics.ts';

const custom: MetricPlan = {
  name: 'custom',
  conversionDerived: false,
  formula: parseFormula('clicks / impressions * 2'),
};

export const metricPlans = fc
  .tuple(fc.shuffledSubarray(Object.keys(SYSTEM_METRICS)), fc.boolean())
  .map(([names, withCustom]) => [
    ...names.map((n): MetricPlan => ({ name: n, conversionDerived: false })),
    ...(withCustom ? [custom] : []),
  ]);
