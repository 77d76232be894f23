// What a command returns: one JSON object for --json, and lines for a person.
/** warnings: lines for stderr (also in json, where the command puts them), whatever the output format. */
export type CommandResult = { json: Record<string, unknown>; text: string; warnings?: string[] };

export const result = (json: Record<string, unknown>, text: string): CommandResult => ({ json, text });

/** Rows as an aligned table under a header of the column names; arrays joined with commas, null as "-". */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '';
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : Array.isArray(value) ? value.join(',') : String(value)).replace(/\s+/g, ' ');
  const cells = [columns, ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells.map((line) => line.map((text, i) => (i === line.length - 1 ? text : text.padEnd(widths[i]))).join('  ').trimEnd()).join('\n');
}
