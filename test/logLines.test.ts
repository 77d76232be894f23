// The log's lines as a process writes them (http/logLines.ts): batched a turn at a time into buffers that take turns,
// every byte in order, whatever the characters and however long the turn's lines.
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const it = suite('log lines');

/** A line per kind of character UTF-8 spends 1 to 4 bytes on, a line longer than a buffer, and a turn of many. */
const WRITER = `
import { writeLine } from './src/http/logLines.ts';
const turn = () => new Promise((resolve) => setImmediate(resolve));
const lines = ['{"path":"/v1/reports"}', 'café', 'über 東京', 'emoji 🎯 and \\u{10348}', 'x'.repeat(70 * 1024)];
for (const line of lines) {
  writeLine(line);
  await turn();
}
for (let i = 0; i < 5000; i++) writeLine(\`{"n":\${i},"é":"\${'é'.repeat(i % 40)}"}\`);
await turn();
for (let round = 0; round < 50; round++) {
  writeLine(\`round \${round}\`);
  await turn();
}
writeLine('the last');
`;

it('every line whole and in order, many characters and turns, one longer than a buffer', () => {
  const out = spawnSync('node', ['--import', 'tsx', '--input-type=module', '-e', WRITER], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(out.status, 0, out.stderr);
  const expected = [
    '{"path":"/v1/reports"}',
    'café',
    'über 東京',
    'emoji 🎯 and \u{10348}',
    'x'.repeat(70 * 1024),
    ...Array.from({ length: 5000 }, (_, i) => `{"n":${i},"é":"${'é'.repeat(i % 40)}"}`),
    ...Array.from({ length: 50 }, (_, round) => `round ${round}`),
    'the last',
  ];
  assert.is(out.stdout, `${expected.join('\n')}\n`);
});

it.run();
