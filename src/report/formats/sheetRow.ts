// One worksheet row as SpreadsheetML (ECMA-376 §18.3.1.73): numbers as numeric cells, text as inline strings.
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const columns: string[] = [];

/** Column letters by index: A..Z, AA.. (cached). */
export function column(index: number): string {
  if (columns[index] === undefined) {
    let name = '';
    for (let n = index; n >= 0; n = Math.floor(n / 26) - 1) name = LETTERS[n % 26] + name;
    columns[index] = name;
  }
  return columns[index];
}

// XML 1.0 §2.2: characters a document may hold; anything else is dropped, as xlsx-write-stream does.
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const escapeText = (text: string) => text.replace(NOT_XML, '').replace(/[&<>]/g, (c) => ESCAPES[c]);

/** The attribute naming a cell's style (sheetLayout.ts), none for the default. */
export const styleAttribute = (style: number | undefined) => (style ? ` s="${style}"` : '');

/** styles: each column's style index (sheetLayout.ts), or none. */
export function sheetRow(index: number, values: readonly unknown[], styles?: readonly number[]): string {
  const r = index + 1;
  let xml = `<row r="${r}">`;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined || value === '') continue;
    const ref = `${column(i)}${r}"${styleAttribute(styles?.[i])}`;
    xml +=
      typeof value === 'number'
        ? `<c r="${ref} t="n"><v>${value}</v></c>`
        : `<c r="${ref} t="inlineStr"><is><t>${escapeText(String(value))}</t></is></c>`;
  }
  return `${xml}</row>`;
}
