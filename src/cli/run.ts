// Runs one operator command line against a database: parse, dispatch, and the exit code it deserves.
import { parseArgs, UsageError } from './args.ts';
import { COMMANDS, type CommandDeps } from './commands.ts';

export type CliOutcome = { code: 0 | 1 | 2; stdout: string; stderr: string };

const USAGE = `usage: readout COMMAND [--flags] [--json]; commands: ${Object.keys(COMMANDS).join(', ')}`;

/** Finds the longest command whose words start the line. */
export function commandOf(words: string[]): string | undefined {
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    if (COMMANDS[name] && n === words.length) return name;
  }
  return undefined;
}

export function parseCommandLine(argv: string[]) {
  const parsed = parseArgs(argv, new Set(['json']));
  const name = commandOf(parsed.words);
  if (!name) throw new UsageError(parsed.words.length ? `unknown command "${parsed.words.join(' ')}"; ${USAGE}` : USAGE);
  return { name, parsed, json: parsed.flags.has('json') };
}

export async function runCommand(argv: string[], deps: CommandDeps): Promise<CliOutcome> {
  let json = argv.includes('--json');
  try {
    const line = parseCommandLine(argv);
    json = line.json;
    const out = await COMMANDS[line.name](deps, line.parsed);
    const warnings = (out.warnings ?? []).map((warning) => `readout: warning: ${warning}\n`).join('');
    return { code: 0, stdout: `${json ? JSON.stringify(out.json) : out.text}\n`, stderr: warnings };
  } catch (error) {
    const message = error instanceof UsageError ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`;
    return { code: error instanceof UsageError ? 2 : 1, stdout: '', stderr: `readout: ${message.split('\n')[0]}\n` };
  }
}
