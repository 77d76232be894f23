// sql/schema.sql is the schema the migrations leave, so a reader can trust it: a migration added or changed without
// regenerating the file (npm run sql:schema) fails here. Read from the embedded database, whose PostgreSQL version
// the lockfile fixes, so the text is the same on every machine.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { currentSchema, SCHEMA_FILE } from '../scripts/schema.ts';

test('sql/schema.sql is what the migrations leave (npm run sql:schema writes it)', async () => {
  assert.fixture(readFileSync(SCHEMA_FILE, 'utf8'), await currentSchema());
});

// A table's columns in the order the statement gives them, never the order the table happens to have: a column added
// in another place would otherwise be filled with another's numbers without a word (issue 95).
test('every insert into a table names its columns, in the live functions and in the queries', () => {
  const texts = [
    ['sql/schema.sql', readFileSync(SCHEMA_FILE, 'utf8')],
    ...readdirSync('sql/queries').map((file) => [`sql/queries/${file}`, readFileSync(`sql/queries/${file}`, 'utf8')]),
  ];
  const unnamed = texts.flatMap(([file, text]) =>
    [...text.matchAll(/insert into (\w+)(?!\w)(?! *(?:as \w+ *)?\()/g)]
      .map((m) => `${file}: insert into ${m[1]}`)
      // defer_rollups' list of a transaction's account-days: a temporary table of two columns, nothing to mistake.
      .filter((line) => !line.endsWith('deferred_rollup_days')),
  );
  assert.equal(unnamed, []);
});

test.run();
