// src/store/queryNames.ts is the union of sql/queries' file names: a query renamed, added or removed without regenerating
// it (npm run sql:names) fails here, and a name that is no file fails tsc.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { queryNamesSource } from '../scripts/queryNames.ts';

test('src/store/queryNames.ts names exactly the files of sql/queries (npm run sql:names writes it)', () => {
  assert.fixture(readFileSync('src/store/queryNames.ts', 'utf8'), queryNamesSource());
});

test.run();
