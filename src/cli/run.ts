// Runs one operator command line against a database: parse, check the flags against the command's usage, dispatch,
// and the exit code it deserves. Help is answered here too, without the database.
import { didYouMean } from '../http/nearest.ts';
import { parseArgs, UsageError } from './args.ts';
import {
  commandHelp,
  COMMANDS,
  flagsOf,
  helpText,
  SWITCHES,
  usageLine,
  versionText,
  type CommandDeps,
} from './commands.ts';

export type CliOutcome = { code: 0 | 1 | 2; stdout: string; stderr: string };

const USAGE = 'usage: readout COMMAND [--flags] [--json]; `readout help` lists the commands';

/** An unknown command line, with the commands nearest it. */
function unknownCommand(words: string[]): UsageError {
  const meant = didYouMean(words.join(' '), Object.keys(COMMANDS));
  return new UsageError(`unknown command "${words.join(' ')}"; ${meant ? `${meant} ` : ''}${USAGE}`);
}

/** Finds the command whose words are the line's words. */
export function commandOf(words: string[]): string | undefined {
  const name = words.join(' ');
  return COMMANDS[name] ? name : undefined;
}

/** The command and its flags, or the help text asked for; a UsageError names every mistake of the line at once. */
export function parseCommandLine(argv: string[]) {
  const parsed = parseArgs(argv, SWITCHES);
  const json = parsed.flags.has('json');
  const [first, ...rest] = parsed.words;
  if ((first === 'version' && rest.length === 0) || (first === undefined && parsed.flags.has('version')))
    return { help: versionText(json), json };
  if (first === 'help' || (first === undefined && parsed.flags.has('help'))) {
    if (rest.length === 0) return { help: helpText(), json };
    const asked = commandOf(rest);
    if (!asked) throw unknownCommand(rest);
    return { help: commandHelp(asked), json };
  }
  const name = commandOf(parsed.words);
  if (!name) throw parsed.words.length ? unknownCommand(parsed.words) : new UsageError(USAGE);
  if (parsed.flags.has('help')) return { help: commandHelp(name), json };
  const spec = flagsOf(COMMANDS[name].usage);
  const unknown = [...parsed.flags.keys()].filter((flag) => flag !== 'json' && !spec.some((s) => s.name === flag));
  if (unknown.length) {
    const meant = didYouMean(`--${unknown[0]}`, ['--json', ...spec.map((s) => `--${s.name}`)]);
    const flags = unknown.map((f) => `--${f}`).join(', ');
    throw new UsageError(`unknown flag ${flags}; ${meant ? `${meant} ` : ''}${usageLine(name)}`);
  }
  const missing = spec.filter((s) => s.required && !parsed.flags.has(s.name));
  if (missing.length)
    throw new UsageError(`missing ${missing.map((s) => `--${s.name}`).join(', ')}; ${usageLine(name)}`);
  return { name, parsed, json };
}

export async function runCommand(argv: string[], deps: CommandDeps): Promise<CliOutcome> {
  let json = argv.includes('--json');
  try {
    const line = parseCommandLine(argv);
    json = line.json;
    if (line.help !== undefined) return { code: 0, stdout: `${line.help}\n`, stderr: '' };
    const out = await COMMANDS[line.name].run(deps, line.parsed);
    const warnings = (out.warnings ?? []).map((warning) => `readout: warning: ${warning}\n`).join('');
    return { code: 0, stdout: `${json ? JSON.stringify(out.json) : out.text}\n`, stderr: warnings };
  } catch (error) {
    const message =
      error instanceof UsageError ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`;
    const details = error instanceof UsageError ? error.details.map((line) => `${line}\n`).join('') : '';
    return {
      code: error instanceof UsageError ? 2 : 1,
      stdout: '',
      stderr: `readout: ${message.split('\n')[0]}\n${details}`,
    };
  }
}
