// The rows of a plain answer, as the formats take them: no comparison range, no summary.
import type { MetricPlan, RowShape } from '../../src/report/metrics.ts';

export const shape = (keys: readonly string[], metrics: MetricPlan[]): RowShape => ({
  keys,
  metrics,
  compared: false,
  summary: false,
});
