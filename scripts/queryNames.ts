// npm run sql:names: writes src/store/queryNames.ts, the union of sql/queries' file names, so a query name is checked by tsc.
// test/queryNames.test.ts fails while the file is not current.
import { readdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export function queryNamesSource(): string {
  const names = readdirSync('sql/queries')
    .filter((file) => file.endsWith('.sql'))
    .map((file) => file.slice(0, -4))
    .sort();
  return [
    '// Written by `npm run sql:names` from the files of sql/queries: every query name, so a typo is a type error.',
    'export type QueryName =',
    ...names.map((name, i) => `  | '${name}'${i === names.length - 1 ? ';' : ''}`),
    '',
  ].join('\n');
}

// Run as a command (not imported by the test): write the file.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  writeFileSync('src/store/queryNames.ts', queryNamesSource());
