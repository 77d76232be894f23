// What a command returns: one JSON object for --json, and lines for a person.
/** warnings: lines for stderr (also in json, where the command puts them), whatever the output format. */
export type CommandResult = { json: Record<string, unknown>; text: string; warnings?: string[] };

export const result = (json: Record<string, unknown>, text: string): CommandResult => ({ json, text });

/** The width a table fits in: a terminal's 100 columns. */
export const TABLE_WIDTH = 100;

/** A column is never cut narrower than this. */
const MIN_COLUMN = 8;

/**
 * Rows as an aligned table under a header of the column names, at most TABLE_WIDTH wide: the widest columns but
 * those in whole (ids, which are copied) are cut, their text ending in "…". Arrays joined with commas, null as "-".
 * --json output holds everything; this is for reading.
 */
export function table(
  rows: Record<string, unknown>[],
  columns: string[],
  whole: readonly string[] = ['id', 'clientId'],
): string {
  if (rows.length === 0) return '';
  const cell = (value: unknown) =>
    (value === null || value === undefined ? '-' : Array.isArray(value) ? value.join(',') : String(value)).replace(
      /\s+/g,
      ' ',
    );
  const cells = [columns, ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  // A column is cut no narrower than its header, nor than MIN_COLUMN.
  const floor = columns.map((name) => Math.max(MIN_COLUMN, name.length));
  for (let over = total() - TABLE_WIDTH; over > 0; over = total() - TABLE_WIDTH) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++)
      if (!whole.includes(columns[i]) && widths[i] > floor[i] && (widest < 0 || widths[i] > widths[widest])) widest = i;
    if (widest < 0) break;
    // The widest down to the next widest at most, so that long columns share the cut.
    const next = Math.max(
      floor[widest],
      ...widths
        .filter((_w, i) => i !== widest && !whole.includes(columns[i]))
        .map((w) => Math.min(w, widths[widest] - 1)),
    );
    widths[widest] = Math.max(floor[widest], widths[widest] - over, next);
  }
  const fit = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);
  return cells
    .map((line) =>
      line
        .map((text, i) => (i === line.length - 1 ? fit(text, widths[i]) : fit(text, widths[i]).padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
