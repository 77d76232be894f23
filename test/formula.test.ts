import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, FormulaError, parseFormula } from '../src/report/formula.ts';
import { rowMetrics, SYSTEM_METRICS, metricCatalogue } from '../src/report/metrics.ts';

const calc = (source: string, values: Record<string, number | null> = {}) => evaluate(parseFormula(source), values);

test('operators follow the usual precedence and parentheses', () => {
  assert.is(calc('1 + 2 * 3'), 7);
  assert.is(calc('(1 + 2) * 3'), 9);
  assert.is(calc('10 - 4 - 3'), 3);
  assert.is(calc('12 / 3 / 2'), 2);
  assert.is(calc('-2 * -3'), 6);
  assert.is(calc('spend / clicks', { spend: 10, clicks: 4 }), 2.5);
});

test('division by zero and missing values give null', () => {
  assert.is(calc('spend / clicks', { spend: 10, clicks: 0 }), null);
  assert.is(calc('spend + nothing', { spend: 10 }), null);
  assert.is(calc('1 / (clicks - clicks)', { clicks: 3 }), null);
});

for (const source of [
  '',
  '1 +',
  '(1',
  '1)',
  'spend ** 2',
  'process.exit(1)',
  'a; b',
  '1 2',
  "constructor['x']",
  'x'.repeat(1001),
]) {
  test(`"${source.slice(0, 20)}" is refused, never evaluated as code`, () => {
    assert.throws(
      () => parseFormula(source),
      (e: unknown) => e instanceof FormulaError,
    );
  });
}

test('ratios come from summed parts; percent is 0-100; zero denominators are null', () => {
  const all = Object.keys(SYSTEM_METRICS).map((name) => ({ name, conversionDerived: false }));
  const row = rowMetrics(
    {
      impressions: 1000,
      clicks: 50,
      spend: 25,
      conversions: 5,
      conversion_value: 100,
      video_views: 0,
      video_completions: 0,
    },
    all,
  );
  assert.equal(
    {
      ctr: row.ctr,
      cpc: row.cpc,
      cpm: row.cpm,
      cpa: row.cpa,
      conversion_rate: row.conversion_rate,
      roas: row.roas,
      view_rate: row.view_rate,
      completion_rate: row.completion_rate,
    },
    { ctr: 5, cpc: 0.5, cpm: 25, cpa: 5, conversion_rate: 10, roas: 4, view_rate: 0, completion_rate: null },
  );
});

test('a custom metric over a conversion metric is conversion-derived', () => {
  const catalogue = metricCatalogue([
    { name: 'value_per_click', formula: 'conversion_value / clicks' },
    { name: 'cpv', formula: 'spend / video_views' },
  ]);
  assert.is(catalogue.get('value_per_click')!.conversionDerived, true);
  assert.is(catalogue.get('cpv')!.conversionDerived, false);
});

test('a custom metric may use others; one that uses itself, an unknown metric or a broken formula is null', () => {
  const catalogue = metricCatalogue([
    { name: 'double_cpc', formula: 'cpc * 2' },
    { name: 'quad_cpc', formula: 'double_cpc * 2' },
    { name: 'roas_pct', formula: 'roas * 100' },
    { name: 'over_roas', formula: 'roas_pct + clicks' },
    { name: 'a_loop', formula: 'b_loop + 1' },
    { name: 'b_loop', formula: 'a_loop + 1' },
    { name: 'unknown', formula: 'spend / nonexistent' },
    { name: 'broken', formula: 'spend / clicks +' },
  ]);
  const sums = {
    impressions: 1000,
    clicks: 50,
    spend: 25,
    conversions: 5,
    conversion_value: 100,
    video_views: 0,
    video_completions: 0,
  };
  const names = ['double_cpc', 'quad_cpc', 'over_roas', 'a_loop', 'b_loop', 'unknown', 'broken'];
  const row = rowMetrics(
    sums,
    names.map((name) => catalogue.get(name)!),
  );
  assert.equal(row, {
    double_cpc: 1,
    quad_cpc: 2,
    over_roas: 450,
    a_loop: null,
    b_loop: null,
    unknown: null,
    broken: null,
  });
  // Conversion-derived through another custom metric: a plan without conversion metrics must not see it.
  assert.is(catalogue.get('over_roas')!.conversionDerived, true);
  assert.is(catalogue.get('quad_cpc')!.conversionDerived, false);
});

test.run();
