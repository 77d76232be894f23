// sql/schema.sql is the schema the migrations leave, so a reader can trust it: a migration added or changed without
// regenerating the file (npm run sql:schema) fails here. Read from the embedded database, whose PostgreSQL version
// the lockfile fixes, so the text is the same on every machine.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { currentSchema, SCHEMA_FILE } from '../scripts/schema.ts';

test('sql/schema.sql is what the migrations leave (npm run sql:schema writes it)', async () => {
  assert.fixture(readFileSync(SCHEMA_FILE, 'utf8'), await currentSchema());
});

test.run();
