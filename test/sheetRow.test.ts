import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sheetRow } from '../src/report/formats/sheetRow.ts';

test('numbers are numeric cells, text inline strings, nulls empty; columns run A..Z, AA', () => {
  const values = ['a', 1.5, null, ...Array.from({ length: 24 }, (_, i) => i)];
  const xml = sheetRow(0, values);
  assert.match(
    xml,
    '<c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="B1" t="n"><v>1.5</v></c><c r="D1" t="n"><v>0</v></c>',
  );
  assert.match(xml, '<c r="AA1" t="n"><v>23</v></c></row>');
});

test('text is escaped for XML and characters XML cannot hold are dropped; emoji survive', () => {
  assert.is(
    sheetRow(4, ['<a & b>\u0001\u0008 "x" 💥']),
    '<row r="5"><c r="A5" t="inlineStr"><is><t>&lt;a &amp; b&gt; "x" 💥</t></is></c></row>',
  );
});

test.run();
