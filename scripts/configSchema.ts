// Writes spec/readout-config.schema.json, the JSON Schema of the file `readout apply` reads (docs/decisions.md §12),
// from the valibot schema that checks it; test/apply.test.ts fails when the file is not what this writes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toJsonSchema } from '@valibot/to-json-schema';
import { ConfigSchema } from '../src/catalogue/schema.ts';

export const CONFIG_SCHEMA_PATH = 'spec/readout-config.schema.json';

export function configJsonSchema(): string {
  // errorMode ignore: the checks JSON Schema cannot say (no name listed twice) are apply's alone.
  const schema = toJsonSchema(ConfigSchema, { target: 'draft-2020-12', errorMode: 'ignore' });
  return `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema }, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONFIG_SCHEMA_PATH, configJsonSchema());
  console.log(`wrote ${CONFIG_SCHEMA_PATH}`);
}
