// Parses `WORD WORD --flag value --switch` command lines, strictly: unknown or repeated flags are errors.
import { parseArgs as parseTokens } from 'node:util';

/** Bad input: exit 2 with one line, and, for a file, one more line for each of its problems. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

export type Parsed = { words: string[]; flags: Map<string, string | true> };

/**
 * node:util's parseArgs reads the line; the checks it leaves to us are ours: a flag given twice (it keeps the last),
 * a value that is another flag, and words after the first flag. Each is a UsageError in the words of this CLI.
 */
export function parseArgs(argv: string[], switches: ReadonlySet<string>): Parsed {
  const options = Object.fromEntries([...switches].map((name) => [name, { type: 'boolean' as const }]));
  let tokens: ReturnType<typeof parseTokens>['tokens'];
  try {
    // Not strict: any other flag is read, and each command refuses the flags it does not know (readFlags).
    ({ tokens } = parseTokens({ args: argv, options, strict: false, allowPositionals: true, tokens: true }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const words: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === 'option-terminator') throw new UsageError('unexpected argument "--"');
    if (token.kind === 'positional') {
      if (flags.size) throw new UsageError(`unexpected argument "${token.value}"`);
      words.push(token.value);
      continue;
    }
    const name = token.name;
    if (!name || !token.rawName.startsWith('--')) throw new UsageError(`malformed flag "${token.rawName}"`);
    if (flags.has(name)) throw new UsageError(`--${name} is given twice`);
    if (switches.has(name)) {
      if (token.inlineValue) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else if (token.value !== undefined) {
      flags.set(name, token.value);
    } else {
      // Read as a switch: its value, if any, is the next word, which must not be a flag.
      const next = tokens[i + 1];
      if (next?.kind !== 'positional') throw new UsageError(`--${name} needs a value`);
      flags.set(name, next.value);
      i++;
    }
  }
  return { words, flags };
}

/**
 * The flags of one command, typed by its required and optional names. run.ts has already checked the line against
 * the command's usage (unknown flags refused, every required one named); a required name missing here means the
 * usage line and the command disagree.
 */
export function readFlags<R extends string, O extends string>(
  flags: Map<string, string | true>,
  required: readonly R[],
  _optional: readonly O[] = [],
): Record<R, string> & Partial<Record<O, string>> {
  const out = Object.fromEntries(flags) as Record<string, string>;
  for (const name of required) if (out[name] === undefined) throw new UsageError(`--${name} is required`);
  return out as Record<R, string> & Partial<Record<O, string>>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuidFlag(name: string, value: string): string {
  if (!UUID.test(value)) throw new UsageError(`--${name} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

export function nameFlag(name: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw new UsageError(`--${name} must be 1 to 200 characters`);
  return trimmed;
}

/** Why a --file could not be read, as bad input: ENOENT, EACCES, or data that is not gzip. */
function unreadable(path: string, error: unknown): UsageError {
  const code = (error as { code?: string }).code;
  return new UsageError(
    `--file: cannot read ${path}${code ? ` (${code === 'Z_DATA_ERROR' ? 'not gzip data' : code})` : ''}`,
  );
}

/** Reads a file whole, up to maxBytes: past them, the file is refused and the rest never read. */
export type ReadText = (path: string, maxBytes: number) => Promise<string>;

/** What a command reads whole at most, and what to do with a larger file. */
export type FileLimit = { maxBytes: number; command: string; instead: string };

/** A file longer than its command reads (an endless pipe, /dev/zero): reading stopped at the limit. */
export class FileTooLong extends Error {
  constructor(readonly maxBytes: number) {
    super(`longer than ${maxBytes} bytes`);
  }
}

/** Chunks as one text, refused once they pass maxBytes, so that memory stays bounded whatever the input. */
export async function readBounded(chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    // Leaving the loop ends the source: a file is closed, standard input no longer read.
    if (size > maxBytes) throw new FileTooLong(maxBytes);
    parts.push(chunk);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(whole);
}

/**
 * The text of the file a --file flag names; a file that cannot be read, or is longer than the command reads, is bad
 * input, named with its reason.
 */
export async function readFileFlag(readText: ReadText, path: string, limit: FileLimit): Promise<string> {
  try {
    return await readText(path, limit.maxBytes);
  } catch (error) {
    if (error instanceof FileTooLong) {
      const size = `${limit.maxBytes / 1024 / 1024} MB`;
      throw new UsageError(
        `--file: ${path === '-' ? 'standard input' : path} is longer than the ${size} ${limit.command} reads; ` +
          `${limit.instead}`,
      );
    }
    throw unreadable(path, error);
  }
}

/** The same, as chunks of bytes while they are read. */
export async function* streamFileFlag(chunks: AsyncIterable<Uint8Array>, path: string): AsyncGenerator<Uint8Array> {
  try {
    yield* chunks;
  } catch (error) {
    throw unreadable(path, error);
  }
}
