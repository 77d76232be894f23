// README's walk-through, run as a newcomer runs it: its server started as it says, its files saved where it says, its
// shell blocks pasted into bash, in a copy of the checkout's layout. It must end with the answer it promises and leave
// nothing outside tour/, a folder git and `npm test` ignore.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startServer, temporaryDir } from './support/server.ts';

const it = suite('the walk-through');

/** The walk-through's steps in order: files to save (by the name the text before gives them) and shell blocks. */
function steps() {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## From an empty organization'), readme.indexOf('## Configuration'));
  return [...section.matchAll(/```(sh|csv|yaml)\n([\s\S]*?)```/g)].map((match) => {
    const body = match[2].replace(/^ {3}/gm, '');
    if (match[1] === 'sh') return { shell: body, save: undefined };
    const saveAs = [...section.slice(0, match.index).matchAll(/Save as\s+`([^`]+)`/g)].at(-1)?.[1];
    assert.ok(saveAs, `the ${match[1]} block says where it is saved`);
    return { shell: undefined, save: saveAs!, body };
  });
}

it('runs as written in tour/ on a database of its own, answers as it says, and writes nothing else', async () => {
  const readme = readFileSync('README.md', 'utf8');
  const start = /`(PORT=8081 DATA_DIR=tour\/data DEMO=off npm start)`/.exec(readme);
  assert.ok(start, 'the walk-through says how its server is started');
  // A checkout's layout, its code linked, so what the walk-through writes is all that appears beside it.
  const checkout = temporaryDir();
  const server = await startServer({ DATA_DIR: join(checkout.path, 'tour', 'data'), DEMO: 'off' }).catch((error) => {
    checkout.remove();
    throw error;
  });
  try {
    const linked = ['node_modules', 'src', 'sql', 'spec', 'package.json', 'tsconfig.json'];
    for (const name of linked) symlinkSync(resolve(name), join(checkout.path, name));
    let script = 'set -euo pipefail\n';
    for (const step of steps()) {
      // The server on 8081 is this test's, on a free port.
      if (step.shell !== undefined) {
        assert.not.match(step.shell, /127\.0\.0\.1:8080/, "the walk-through never calls the demo's port");
        script += `${step.shell.replaceAll('http://127.0.0.1:8081', server.url)}\n`;
      } else {
        // The first block has made tour/ and moved into it; a file is saved where the shell stands.
        mkdirSync(join(checkout.path, 'tour'), { recursive: true });
        script += `cat > ${step.save} <<'WALK_THROUGH'\n${step.body}WALK_THROUGH\n`;
      }
    }
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn('bash', ['-c', script], { cwd: checkout.path, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.on('exit', (code) => (clearTimeout(timer), done({ code, stdout, stderr })));
    });
    assert.is(ran.code, 0, `${ran.stderr}\n${server.output()}`);
    const answer = JSON.parse(ran.stdout.trim().split('\n').at(-1)!);
    assert.is(answer.rows.length, 3, ran.stdout);
    const search = answer.rows.find((row: { dimensions: Record<string, string> }) =>
      row.dimensions.campaignName.startsWith('Brand search'),
    );
    assert.is(search.metrics.spend, 50, "Brand search's 55 USD shows as 50 EUR");
    assert.equal(readdirSync(checkout.path).sort(), [...linked, 'tour'].sort(), 'nothing written beside tour/');
    assert.equal(readdirSync(join(checkout.path, 'tour')).sort(), [
      'client.json',
      'data',
      'facts.csv',
      'rates.csv',
      'readout.yaml',
    ]);
    assert.ok(readFileSync('.gitignore', 'utf8').split('\n').includes('tour/'), 'git ignores tour/');
    // Its first start logged the migrations it applied, and nothing of the demo it did not make.
    assert.match(server.output(), /"msg":"migrations applied"/);
    assert.not.ok(server.output().includes('"demo"'), server.output());
  } finally {
    await server.stop();
    checkout.remove();
  }
});

it("`npm test`'s format check reads the repository's own files, not a scratch file beside them", () => {
  const includes: string[] = JSON.parse(readFileSync('biome.json', 'utf8')).files.includes;
  assert.not.ok(
    includes.some((glob) => !glob.startsWith('!') && !glob.includes('/') && glob.includes('*')),
    `a pattern at the top of the checkout catches a user's files: ${includes.join(', ')}`,
  );
});

it.run();
