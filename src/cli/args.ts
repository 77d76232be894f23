// Parses `WORD WORD --flag value --switch` command lines, strictly: unknown or repeated flags are errors.
export class UsageError extends Error {}

export type Parsed = { words: string[]; flags: Map<string, string | true> };

export function parseArgs(argv: string[], switches: ReadonlySet<string>): Parsed {
  const words: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      if (flags.size) throw new UsageError(`unexpected argument "${arg}"`);
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!name) throw new UsageError(`malformed flag "${arg}"`);
    if (flags.has(name)) throw new UsageError(`--${name} is given twice`);
    if (switches.has(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else if (eq >= 0) {
      flags.set(name, arg.slice(eq + 1));
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      i++;
    }
  }
  return { words, flags };
}

/** The flags of one command: required and optional names, read as strings; anything else is refused. */
export function readFlags<R extends string, O extends string>(
  flags: Map<string, string | true>,
  required: readonly R[],
  optional: readonly O[] = [],
): Record<R, string> & Partial<Record<O, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of flags) {
    if (name === 'json') continue;
    if (!(required as readonly string[]).includes(name) && !(optional as readonly string[]).includes(name)) {
      throw new UsageError(`unknown flag --${name}`);
    }
    out[name] = value as string;
  }
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
