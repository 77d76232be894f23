// The operator commands of docs/decisions.md §10, by their words, each with the usage its help prints and the checks of
// its flags read from (a required flag is written `--org ID`, an optional one `[--plan CODE]`, a switch `[--yes]`).
import type { Sql } from '../store/database.ts';
import type { Parsed, ReadText } from './args.ts';
import { clientCreate, clientList, clientRevoke, clientSecretAdd, clientSecretRevoke } from './client.ts';
import { apply, configExport } from './catalogue.ts';
import { accountConnection, generate } from './data.ts';
import { importFile } from './importFile.ts';
import { dbCopy, type Installation } from './dbCopy.ts';
import { keysList, keysRotate } from './keys.ts';
import { demo } from './demo.ts';
import { fxImport, fxList } from './fx.ts';
import { accountList, metricList, orgList, reportList, segmentList } from './lists.ts';
import { orgCreate, orgDelete, planSet, subscriptionLock } from './org.ts';
import type { CommandResult } from './output.ts';
import { bundled } from '../bundled.ts';
import { SCOPES } from '../auth/scopes.ts';
import { VERSION } from '../config.ts';

export type CommandDeps = {
  sql: Sql;
  now: number;
  progress: (line: string) => void;
  /** Reads a file named on the command line, up to a limit (only the entry file touches the file system). */
  readText?: ReadText;
  /** The same as chunks of bytes, as they are read: `-` is standard input, gzip is unpacked. */
  readStream?: (path: string) => AsyncIterable<Uint8Array>;
  /** Whether the database speaks COPY (real PostgreSQL does; the embedded socket does not). */
  copy?: boolean;
  /** How many creatives an import holds in memory at most (importFile.ts); tests set a few. */
  creativesHeld?: number;
  /** How often an import shows its progress, in ms (importFile.ts); tests set 0. */
  progressEvery?: number;
  /** About how many facts generate writes a statement (data.ts); tests set a few. */
  generateChunkRows?: number;
  /** TOKEN_TTL_S: how long a rotated signing key must still verify (keys.ts). */
  tokenTtlSeconds?: number;
  /** Where the database this command runs against is, for db copy to refuse copying it onto itself. */
  installation?: Installation;
};

export type Command = {
  summary: string;
  /** Lines its help prints after the usage: what a flag's values may be. */
  details?: string[];
  /** The flags after the command's words, as its usage line shows them. */
  usage: string;
  example: string;
  run: (deps: CommandDeps, args: Parsed) => Promise<CommandResult>;
};

const noFile = () => Promise.reject(new Error('no file access'));
const noStream = async function* (): AsyncGenerator<Uint8Array> {
  throw new Error('no file access');
};

export const COMMANDS: Record<string, Command> = {
  demo: {
    summary: 'create the demo organization (or top it up) and issue its client a fresh secret; --remove deletes it',
    details: [
      'It also makes "Other Company", a second organization with an ad account and a report of its own: the demo',
      'client must never see them, so you can try allow-lists and tenancy (a request for its report is 404).',
    ],
    usage: '[--remove]',
    example: 'readout demo',
    run: ({ sql, now }, args) => demo(sql, args, now),
  },
  'org create': {
    summary: 'create an organization and its subscription',
    usage: '--name NAME [--plan CODE] [--currency CODE]',
    example: 'readout org create --name "Acme" --plan business --currency EUR',
    run: ({ sql }, args) => orgCreate(sql, args),
  },
  'org delete': {
    summary: 'delete an organization and everything it owns; its clients are cut off within a second',
    usage: '--org ID [--yes]',
    example: 'readout org delete --org 3f0c... --yes',
    run: ({ sql }, args) => orgDelete(sql, args),
  },
  'org list': {
    summary: 'list the organizations, with their plans',
    usage: '',
    example: 'readout org list',
    run: ({ sql }) => orgList(sql),
  },
  'plan set': {
    summary: "change an organization's plan, or its hourly budget",
    usage: '--org ID --plan CODE [--budget N]',
    example: 'readout plan set --org 3f0c... --plan enterprise --budget 50000',
    run: ({ sql }, args) => planSet(sql, args),
  },
  'subscription lock': {
    summary: "lock an organization's subscription: its clients' data requests answer subscription-locked",
    usage: '--org ID',
    example: 'readout subscription lock --org 3f0c...',
    run: ({ sql }, args) => subscriptionLock(true)(sql, args),
  },
  'subscription unlock': {
    summary: "unlock an organization's subscription",
    usage: '--org ID',
    example: 'readout subscription unlock --org 3f0c...',
    run: ({ sql }, args) => subscriptionLock(false)(sql, args),
  },
  'account list': {
    summary: "list an organization's ad accounts",
    usage: '--org ID',
    example: 'readout account list --org 3f0c...',
    run: ({ sql }, args) => accountList(sql, args),
  },
  'account connection': {
    summary: "set an ad account's connection status",
    usage: '--account ID --status ok|expired|permission-lost',
    example: 'readout account connection --account 9a1b... --status expired',
    run: ({ sql }, args) => accountConnection(sql, args),
  },
  'report list': {
    summary: "list an organization's reports",
    usage: '--org ID',
    example: 'readout report list --org 3f0c...',
    run: ({ sql }, args) => reportList(sql, args),
  },
  'segment list': {
    summary: "list an organization's segments",
    usage: '--org ID',
    example: 'readout segment list --org 3f0c...',
    run: ({ sql }, args) => segmentList(sql, args),
  },
  'metric list': {
    summary: "list the metrics an organization's reports may use: system and custom",
    usage: '--org ID',
    example: 'readout metric list --org 3f0c...',
    run: ({ sql }, args) => metricList(sql, args),
  },
  apply: {
    summary: "make an organization's ad accounts, custom metrics, segments and reports what a YAML file says",
    usage: '--org ID --file FILE [--dry-run] [--prune]',
    example: 'readout apply --org 3f0c... --file readout.yaml --dry-run',
    run: ({ sql, readText }, args) => apply(sql, args, readText ?? noFile),
  },
  'config export': {
    summary: "print an organization's ad accounts, custom metrics, segments and reports as the YAML apply reads",
    usage: '--org ID',
    example: 'readout config export --org 3f0c... > readout.yaml',
    run: ({ sql }, args) => configExport(sql, args),
  },
  'client create': {
    summary: 'create an API client and its first secret (shown once)',
    usage: '--org ID --name NAME --scopes "SCOPE ..." --reports all|ID,... --ad-accounts all|ID,...',
    details: [
      `scopes, one or more, space-separated: ${SCOPES.slice(0, 4).join(' ')}`,
      `  ${SCOPES.slice(4).join(' ')}`,
      '--reports and --ad-accounts: all, or the ids the client may see (readout report list, readout account list)',
    ],
    example:
      'readout client create --org 3f0c... --name warehouse --scopes "reports:read reports:data" --reports all ' +
      '--ad-accounts all',
    run: ({ sql }, args) => clientCreate(sql, args),
  },
  'client list': {
    summary: "list an organization's clients (never their secrets)",
    usage: '--org ID',
    example: 'readout client list --org 3f0c...',
    run: ({ sql }, args) => clientList(sql, args),
  },
  'client revoke': {
    summary: 'revoke a client: its tokens stop within a second',
    usage: '--client ID',
    example: 'readout client revoke --client rdc_0123...',
    run: ({ sql }, args) => clientRevoke(sql, args),
  },
  'client secret add': {
    summary: 'add a secret to a client (shown once), to rotate without downtime',
    usage: '--client ID [--expires ISO-8601]',
    example: 'readout client secret add --client rdc_0123... --expires 2027-01-01',
    run: ({ sql, now }, args) => clientSecretAdd(sql, args, now),
  },
  'client secret revoke': {
    summary: "revoke one of a client's secrets",
    usage: '--client ID --secret SECRET_ID',
    example: 'readout client secret revoke --client rdc_0123... --secret 5d2e...',
    run: ({ sql }, args) => clientSecretRevoke(sql, args),
  },
  import: {
    summary: 'load platform data from a CSV file, streamed (- for standard input, .gz read through gunzip)',
    usage: '--org ID --file FILE',
    example: 'readout import --org 3f0c... --file facts.csv.gz',
    run: ({ sql, now, readStream, copy, progress, creativesHeld, progressEvery }, args) =>
      importFile(sql, args, {
        now,
        copy: copy ?? false,
        progress,
        readStream: readStream ?? noStream,
        creativesHeld,
        progressEvery,
      }),
  },
  generate: {
    summary: 'generate synthetic data at scale, for trials and benchmarks',
    usage: '--org ID --accounts N --campaigns N --days N [--creatives N] [--currencies C,C]',
    details: [
      'The counts are totals for the organization, not per parent: --campaigns are spread over the --accounts, and',
      '--creatives (default 5 a campaign) over the campaigns, each getting some. One fact a creative and day, for',
      "the --days up to yesterday. --currencies: the accounts take them in turn (default: the organization's).",
    ],
    example: 'readout generate --org 3f0c... --accounts 5 --campaigns 200 --days 400',
    run: ({ sql, now, progress, generateChunkRows }, args) => generate(sql, args, now, progress, generateChunkRows),
  },
  'fx import': {
    summary: "import exchange rates: the ECB's euro reference rates, or a CSV of USD per unit",
    usage: '--file FILE',
    example: 'readout fx import --file eurofxref-hist.csv',
    run: ({ sql, readText }, args) => fxImport(sql, args, readText ?? noFile),
  },
  'keys rotate': {
    summary: 'make a new key sign access tokens; the old one verifies until every token it signed has expired',
    details: [
      'Every process signs with the new key within 10 seconds and verifies with either meanwhile. The old key is',
      "retired TOKEN_TTL_S and a minute later: run it with the servers' TOKEN_TTL_S (docs/operations.md).",
    ],
    usage: '',
    example: 'readout keys rotate',
    run: ({ sql, tokenTtlSeconds }) => keysRotate(sql, tokenTtlSeconds ?? 3600),
  },
  'keys list': {
    summary: 'list the token signing keys: which signs, and when each old one stops verifying (never a secret)',
    usage: '',
    example: 'readout keys list',
    run: ({ sql }) => keysList(sql),
  },
  'db copy': {
    summary: 'copy this installation whole into an empty database, embedded or PostgreSQL, and compare both sides',
    details: [
      '--to: postgres://USER@HOST:PORT/DATABASE, or embedded:DIR (a folder that holds no database yet). The source is',
      'the installation this command runs against (DATABASE_URL, else DATA_DIR). Stop the servers that write to it',
      'first; the target must be empty (docs/operations.md, "Moving between databases").',
    ],
    usage: '--to URL',
    example: 'readout db copy --to postgres://readout@db.internal:5432/readout',
    run: ({ sql, progress, installation }, args) => dbCopy(sql, args, installation ?? { dataDir: './data' }, progress),
  },
  'fx list': {
    summary: 'list the currencies with rates, and the days they cover',
    usage: '',
    example: 'readout fx list',
    run: ({ sql }, args) => fxList(sql, args),
  },
};

export type FlagSpec = { name: string; required: boolean; value: boolean };

/** The flags a usage line names: `--org ID` required, `[--plan CODE]` optional, `[--yes]` a switch. */
export function flagsOf(usage: string): FlagSpec[] {
  return [...usage.matchAll(/(\[)?--([a-z][a-z-]*)( (?:"[^"]*"|[^\s\]]+))?\]?/g)].map(([, optional, name, value]) => ({
    name,
    required: !optional,
    value: value !== undefined,
  }));
}

/** Every switch any command takes, and those every command takes: the parser must know them before the command. */
export const SWITCHES = new Set([
  'json',
  'help',
  'version',
  ...Object.values(COMMANDS).flatMap((c) =>
    flagsOf(c.usage)
      .filter((f) => !f.value)
      .map((f) => f.name),
  ),
]);

export const usageLine = (name: string) =>
  `usage: readout ${name}${COMMANDS[name].usage ? ` ${COMMANDS[name].usage}` : ''} [--json]`;

/** `readout help`: every command with its one line. */
export function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    'readout: the operator command line of readout, the reporting API (docs/commands.md).',
    'usage: readout COMMAND [--flags] [--json]     readout COMMAND --help for its flags and an example',
    bundled.command
      ? 'readout serve (or readout alone) starts the server; its settings are environment variables (README ' +
        '"Configuration")'
      : '(from a checkout: npm run readout -- COMMAND; on Bun: npx bun src/cli.ts COMMAND)',
    '',
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    `  ${'version'.padEnd(width)}  print the version and the runtime (also --version)`,
    '',
    'With --json every command prints exactly one JSON object. Bad arguments: one line on stderr, exit 2.',
  ].join('\n');
}

/** `readout COMMAND --help`: what it does, its usage line, and an example. */
export function commandHelp(name: string): string {
  const command = COMMANDS[name];
  return [
    `readout ${name}: ${command.summary}`,
    usageLine(name),
    ...(command.details ?? []),
    `example: ${command.example}`,
  ].join('\n');
}

/** `readout version`: the package's version and the runtime it runs on (docs/decisions.md §10). */
export function versionText(json: boolean): string {
  const runtime = runtimeName();
  return json ? JSON.stringify({ version: VERSION, runtime }) : `readout ${VERSION} (${runtime})`;
}

function runtimeName(): string {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
  if (g.Bun) return `Bun ${g.Bun.version}`;
  if (g.Deno) return `Deno ${g.Deno.version.deno}`;
  return `Node ${process.versions.node}`;
}
