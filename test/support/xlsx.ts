// Reads an XLSX with a reader independent of our code: Debian's python3-openpyxl.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDir } from './server.ts';

const READ = `
import json, sys, openpyxl
book = openpyxl.load_workbook(sys.argv[1], read_only=True)
sheet = book.worksheets[0]
print(json.dumps({"sheets": len(book.worksheets), "rows": [list(r) for r in sheet.iter_rows(values_only=True)]}))
`;

/** Whether Debian's python3-openpyxl is there to read with (npm ci does not install it). */
export const hasOpenpyxl = () => spawnSync('/usr/bin/python3', ['-c', 'import openpyxl']).status === 0;

export function readXlsx(bytes: Uint8Array): { sheets: number; rows: unknown[][] } {
  const dir = temporaryDir();
  try {
    const file = join(dir.path, 'export.xlsx');
    writeFileSync(file, bytes);
    const out = spawnSync('/usr/bin/python3', ['-c', READ, file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (out.status !== 0) throw new Error(`openpyxl could not read the file: ${out.stderr}`);
    return JSON.parse(out.stdout);
  } finally {
    dir.remove();
  }
}
