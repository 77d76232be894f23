// The enumerations of src/dataModel.ts are the values the SQL check constraints allow, column by column.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CAMPAIGN_STATUSES,
  CONNECTION_STATUSES,
  CREATIVE_FORMATS,
  METRIC_KINDS,
  PLATFORMS,
  RATE_SOURCES,
  REPORT_KINDS,
} from '../src/dataModel.ts';
import { freshDatabase } from './support/database.ts';

const COLUMNS: Record<string, readonly string[]> = {
  'ad_accounts.platform': PLATFORMS,
  'ad_accounts.connection_status': CONNECTION_STATUSES,
  'campaigns.status': CAMPAIGN_STATUSES,
  'creatives.format': CREATIVE_FORMATS,
  'system_metrics.kind': METRIC_KINDS,
  'custom_metrics.kind': METRIC_KINDS,
  'reports.kind': REPORT_KINDS,
  'fx_rates.source': RATE_SOURCES,
};

test("every enumeration is what its column's check constraint allows", async () => {
  const db = await freshDatabase();
  try {
    const rows = await db.sql<{ tbl: string; col: string; def: string }[]>`
      select c.conrelid::regclass::text as tbl, a.attname as col, pg_get_constraintdef(c.oid) as def
      from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
      where c.contype = 'c' and cardinality(c.conkey) = 1`;
    const allowed = new Map(
      rows
        .filter((r) => /ANY \(ARRAY\[/.test(r.def))
        .map((r) => [`${r.tbl}.${r.col}`, [...r.def.matchAll(/'([^']*)'::text/g)].map((m) => m[1])]),
    );
    for (const [column, values] of Object.entries(COLUMNS)) assert.equal(allowed.get(column), [...values], column);
  } finally {
    await db.close();
  }
});

test.run();
