// The command line's output reaches its reader whole: through a pipe whose reader is slow, `config export` and a
// 400-report `report list --json` arrive byte for byte, on Node and on Bun; a reader that closes early ends the command
// quietly; an export cut short is refused by `apply` with nothing written, so `export | apply --prune` never deletes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { command, startServer, temporaryDir, type Runtime } from './support/server.ts';
import { skipped } from './support/skip.ts';
import { onPostgres, processDatabase } from './support/database.ts';

const REPORTS = 400;

type Ctx = { env: Record<string, string>; org: string; drop(): Promise<void> };
const it = suite<Ctx>('command line output through pipes');

/** What a process writes to a stream, as it comes: until() settles once it matches, or after ms at the latest. */
function said(stream: NodeJS.ReadableStream) {
  const heard = {
    text: '',
    waiting: [] as (() => boolean)[],
    until(pattern: RegExp, ms: number) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        const check = () => {
          if (!pattern.test(heard.text)) return false;
          clearTimeout(timer);
          resolve();
          return true;
        };
        if (!check()) heard.waiting.push(check);
      });
    },
  };
  stream.on('data', (chunk) => {
    heard.text += chunk;
    heard.waiting = heard.waiting.filter((check) => !check());
  });
  return heard;
}

/** A quoted command line of the CLI under a runtime, for bash. */
const cliLine = (runtime: Runtime, args: string[]) =>
  [...command(runtime, 'src/cli.ts').flat(), ...args].map((word) => `'${word}'`).join(' ');

/** Runs a bash pipeline with the test's database in its environment. */
function shell(context: Ctx, line: string, input?: string) {
  return spawnSync('bash', ['-o', 'pipefail', '-c', line], {
    env: context.env,
    input,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 << 20,
  });
}

/** The organization's catalogue with REPORTS reports of about 1 KB each, as a file apply reads (about 500 KB). */
function catalogue() {
  const reports = Array.from({ length: REPORTS }, (_, i) =>
    [
      `  - name: Report ${String(i).padStart(3, '0')}`,
      `    description: "${'a long description '.repeat(50)}"`,
      '    kind: standard',
      '    currency: USD',
      '    adAccounts: [tiktok-ads/tt_1]',
      '    metrics: [impressions, clicks, spend]',
      '    groupings: [total, campaign]',
    ].join('\n'),
  );
  return [
    'adAccounts:',
    '  - { platform: tiktok-ads, externalId: tt_1, name: TikTok, currency: USD }',
    'reports:',
    ...reports,
  ].join('\n');
}

it.before(async (context) => {
  const database = await processDatabase();
  context.env = database.env;
  context.drop = database.remove;
  const created = shell(context, `${cliLine('node', ['org', 'create', '--name', 'Piped', '--json'])}`);
  assert.is(created.status, 0, created.stderr);
  context.org = JSON.parse(created.stdout).organizationId;
  const applied = shell(context, cliLine('node', ['apply', '--org', context.org, '--file', '-']), catalogue());
  assert.is(applied.status, 0, applied.stderr);
});

it.after(async (context) => {
  await context.drop();
});

const reportCount = (context: Ctx) => {
  const listed = shell(context, cliLine('node', ['report', 'list', '--org', context.org, '--json']));
  assert.is(listed.status, 0, listed.stderr);
  return JSON.parse(listed.stdout).reports.length;
};

for (const runtime of ['node', 'bun'] as const) {
  it(`${runtime}: a 500 KB export and a ${REPORTS}-report --json list reach a reader that sleeps first, whole`, (context) => {
    const exported = shell(context, cliLine(runtime, ['config', 'export', '--org', context.org]));
    assert.is(exported.status, 0, exported.stderr);
    assert.ok(exported.stdout.length > 400_000, `${exported.stdout.length} bytes`);
    assert.ok(exported.stdout.endsWith('# End of the export: a file that lacks this line was cut short.\n'));
    const slow = shell(context, `${cliLine(runtime, ['config', 'export', '--org', context.org])} | (sleep 1; cat)`);
    assert.is(slow.status, 0, slow.stderr);
    assert.is(slow.stdout.length, exported.stdout.length);
    assert.is(slow.stdout, exported.stdout);
    const list = shell(
      context,
      `${cliLine(runtime, ['report', 'list', '--org', context.org, '--json'])} | (sleep 1; cat)`,
    );
    assert.is(list.status, 0, list.stderr);
    assert.is(JSON.parse(list.stdout).reports.length, REPORTS);
  });

  it(`${runtime}: a reader that closes early ends the command quietly`, (context) => {
    const line = `${cliLine(runtime, ['report', 'list', '--org', context.org, '--json'])} | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}" >&2`;
    const cut = spawnSync('bash', ['-c', line], { env: context.env, encoding: 'utf8', timeout: 120_000 });
    const status = Number(cut.stderr.trim().split('\n').at(-1));
    assert.ok(status === 0 || status === 141, `exit ${status}`);
    // The database line comes first, as from every command (docs/decisions.md §10).
    const rest = cut.stderr.trim().replace(/^readout: database: .*\n/, '');
    assert.is(rest, String(status), 'nothing but the status on stderr: no stack trace');
  });

  it(`${runtime}: export | apply --file - --prune through a slow pipe changes nothing`, (context) => {
    const pipeline = `${cliLine(runtime, ['config', 'export', '--org', context.org])} | (sleep 1; ${cliLine(runtime, ['apply', '--org', context.org, '--file', '-', '--prune'])})`;
    const round = shell(context, pipeline);
    assert.is(round.status, 0, round.stderr);
    assert.is(round.stdout, 'no changes: the organization already matches stdin\n');
    assert.is(reportCount(context), REPORTS);
  });
}

it('an export cut between two entries is refused by apply --prune, naming the cut, nothing written', (context) => {
  const exported = shell(context, cliLine('node', ['config', 'export', '--org', context.org]));
  const text = exported.stdout;
  // Cut after the 200th report's entry: what remains is valid YAML that names half the reports.
  const cutAt = text.indexOf('  - name: Report 200');
  assert.ok(cutAt > 0);
  const applied = shell(
    context,
    cliLine('node', ['apply', '--org', context.org, '--file', '-', '--prune']),
    text.slice(0, cutAt),
  );
  assert.is(applied.status, 2, applied.stdout);
  assert.match(applied.stderr, /1 problem, nothing written/);
  assert.match(applied.stderr, /lacks its closing line .*cut short/);
  assert.is(reportCount(context), REPORTS);
});

it('a command waits for another operator command that holds the embedded folder, and says so', async (context) => {
  const name = 'a command waits for another operator command that holds the embedded folder, and says so';
  if (skipped(onPostgres, 'command line output through pipes', name, 'on PostgreSQL no process holds the database'))
    return;
  const dir = temporaryDir();
  try {
    // This test's own process stands for a command that holds the folder.
    writeFileSync(join(dir.path, 'readout.lock'), `${process.pid} command`);
    const [cmd, args] = command('node', 'src/cli.ts');
    // org create, which may make the database the folder does not hold yet.
    const child = spawn(cmd, [...args, 'org', 'create', '--name', 'Waiting'], {
      env: { ...context.env, DATA_DIR: dir.path },
    });
    const stderr = said(child.stderr);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await stderr.until(/waiting for process/, 30_000);
    assert.match(
      stderr.text,
      new RegExp(
        `^readout: database: .*\\nreadout: waiting for process ${process.pid}, an operator command, to finish`,
      ),
    );
    rmSync(join(dir.path, 'readout.lock'));
    assert.is(await exited, 0, stderr.text);
  } finally {
    dir.remove();
  }
});

it('an import whose embedded server is killed ends with one line, no stack trace', async (context) => {
  const name = 'an import whose embedded server is killed ends with one line, no stack trace';
  if (skipped(onPostgres, 'command line output through pipes', name, 'on PostgreSQL no server holds the database'))
    return;
  const header =
    'date,platform,account_id,account_name,currency,campaign_id,campaign_name,creative_id,creative_name,format,' +
    'impressions,clicks,spend,conversions,conversion_value,video_views,video_completions';
  const lines = [header];
  // Long enough that the server is killed while the import still writes: about five seconds of work.
  for (let day = 1; day <= 28; day++)
    for (let creative = 0; creative < 8000; creative++)
      lines.push(
        `2026-02-${String(day).padStart(2, '0')},tiktok-ads,tt_1,TikTok,USD,c_${creative % 40},Campaign,cr_${creative},` +
          'Creative,image,1000,50,10.00,1,20.00,0,0',
      );
  const server = await startServer({ DATA_DIR: context.env.DATA_DIR });
  try {
    const [cmd, args] = command('node', 'src/cli.ts');
    const child = spawn(cmd, [...args, 'import', '--org', context.org, '--file', '-'], {
      env: context.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stderr = said(child.stderr);
    const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(`${code} ${signal}`)));
    child.stdin.on('error', () => {});
    child.stdin.end(`${lines.join('\n')}\n`);
    // Killed once the import has begun writing, or after 20 s at the latest.
    await stderr.until(/rows read/, 20_000);
    await server.stop('SIGKILL');
    const status = await exited;
    assert.is.not(status, '0 null', stderr.text);
    const last = stderr.text.trim().split('\n').at(-1) ?? '';
    assert.match(last, /^readout: /, `${status}: ${stderr.text}`);
    assert.not.match(stderr.text, /\n\s+at |TypeError|node:internal/);
  } finally {
    await server.stop('SIGKILL');
  }
});

it.run();
