// SQL that lists the base metrics names each of them once, in a placeholder the list is written from (docs/lattice.md,
// "Where the rules live"): `{{base: sum(f.%) as %}}` is `sum(f.impressions) as impressions, sum(f.clicks) as clicks,
// …`, every base metric of src/dataModel.ts in order, `%` its name and `#` its place (1, 2, …; `#4`: 5, 6, …). A
// kind may take its own pattern after `;;`: `{{base: sum(f.%) as % ;; money: case when count(*) = count(f.%) then
// sum(f.%) end as %}}`; kinds not given take the first pattern.
import { BASE_METRIC_DECLARATIONS, type BaseKind } from '../dataModel.ts';

type Metric = { name: string; kind: BaseKind };
const BUILT_IN: readonly Metric[] = BASE_METRIC_DECLARATIONS;

const PLACEHOLDER = /\{\{base: (.*?)\}\}/gs;
const WIDTH = 120;

/** The patterns of a placeholder's text: the first for every kind, then a kind's own. */
function patterns(spec: string): Record<BaseKind, string> {
  const [first, ...rest] = spec.split(' ;; ');
  const byKind: Record<BaseKind, string> = { count: first, money: first, decimal: first };
  for (const part of rest) {
    const at = part.indexOf(': ');
    const kind = part.slice(0, at) as BaseKind;
    if (!(kind in byKind)) throw new Error(`{{base …}}: unknown kind "${kind}" in "${spec}"`);
    byKind[kind] = part.slice(at + 2);
  }
  return byKind;
}

/** text with each placeholder written out for metrics (the built-in ones unless given). */
export function expandBaseLists(text: string, metrics: readonly Metric[] = BUILT_IN): string {
  return text.replace(PLACEHOLDER, (whole: string, spec: string, at: number) => {
    const byKind = patterns(spec);
    const items = metrics.map((m, i) =>
      byKind[m.kind].replaceAll('%', m.name).replace(/#(\d*)/g, (_, offset: string) => String(i + 1 + Number(offset))),
    );
    // Wrapped as a person would: a line that would pass WIDTH goes on under a select list's first column, under
    // the list when it starts its line, else indented.
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    const before = text.slice(lineStart, at);
    const indent = before.length - before.trimStart().length;
    const selected = /^\s*select /.exec(before);
    const column = selected ? selected[0].length : before.trim() === '' ? before.length : indent + 4;
    let width = at - lineStart;
    const rest =
      text.indexOf('\n', at) < 0 ? text.length - at - whole.length : text.indexOf('\n', at) - at - whole.length;
    let out = '';
    items.forEach((item, i) => {
      const piece = i < items.length - 1 ? `${item},` : item;
      const end = i < items.length - 1 ? 0 : rest;
      if (i > 0 && width + 1 + piece.length + end > WIDTH) {
        out += `\n${' '.repeat(column)}`;
        width = column;
      } else if (i > 0) {
        out += ' ';
        width += 1;
      }
      out += piece;
      width += piece.length;
    });
    return out;
  });
}
