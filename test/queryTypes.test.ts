// src/store/queryTypes.ts is each query's parameters and row as PostgreSQL describes them against the migrated
// schema: a query changed without regenerating it (npm run sql:types) fails here, and its callers then fail tsc.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { queryTypesSource } from '../scripts/queryTypes.ts';

test('src/store/queryTypes.ts is what the queries describe (npm run sql:types writes it)', async () => {
  assert.fixture(readFileSync('src/store/queryTypes.ts', 'utf8'), await queryTypesSource());
});

test.run();
