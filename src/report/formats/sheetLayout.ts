// How an exported worksheet looks to a person: a bold header row that stays in view, columns as wide as their
// header, and each metric shown by its kind (money and decimals #,##0.00, counts #,##0, percent and ratio 0.00), the
// cells keeping every digit. xlsx-write-stream has no options for any of it, so the two templates it reads when a
// workbook is made (its styles and the worksheet's opening) are replaced by ours: its version is pinned, and
// test/sheetLayout.test.ts fails the day those templates move.
import { createRequire } from 'node:module';
import { bundled, type SheetTemplates } from '../../bundled.ts';

/** Indexes into STYLES' cellXfs; the number formats are ECMA-376 §18.8.30's built-in ones (2, 3, 4). */
const STYLE_OF_KIND: Record<string, number> = { percent: 2, ratio: 2, count: 3, money: 4, decimal: 4 };
const HEADER_STYLE = 1;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>
<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>
<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>
<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>
<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
<cellXfs count="5">
<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>
<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>
<xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="3" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
</cellXfs>
<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>
</styleSheet>`;

/** The worksheet up to its rows: the first row frozen (ECMA-376 §18.3.1.66), each column's width in characters. */
function sheetOpening(header: readonly string[]): string {
  const cols = header.map(
    (title, i) =>
      `<col min="${i + 1}" max="${i + 1}" width="${Math.min(Math.max(title.length + 3, 10), 60)}" customWidth="1"/>`,
  );
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"
 xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>
<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>
<sheetFormatPr defaultRowHeight="15"/>
<cols>${cols.join('')}</cols>
<sheetData>`;
}

const fromPackage = (): SheetTemplates => {
  const require = createRequire(import.meta.url);
  return {
    styles: require('xlsx-write-stream/dist/templates/styles.js'),
    opening: require('xlsx-write-stream/dist/templates/sheet-header.js'),
  };
};
let templates: SheetTemplates | undefined;

/** Sets the looks of the next workbook made, whose constructor reads the templates (so call it just before). */
export function useSheetLayout(header: readonly string[]): void {
  // The executable's bundle holds the package's modules itself, so it hands over its own (scripts/build.ts).
  templates ??= bundled.sheetTemplates ?? fromPackage();
  templates.styles.default = STYLES;
  templates.opening.default = sheetOpening(header);
}

/** The style of each column's cells: none for the dimensions, the metric's kind for the metrics. */
export function cellStyles(dimensions: number, kinds: readonly (string | undefined)[]): number[] {
  return [
    ...Array.from({ length: dimensions }, () => 0),
    ...kinds.map((kind) => (kind ? (STYLE_OF_KIND[kind] ?? 0) : 0)),
  ];
}

/** The header row's style for every column. */
export const headerStyles = (columns: number): number[] => Array.from({ length: columns }, () => HEADER_STYLE);
