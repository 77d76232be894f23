// The operator commands of DECISIONS §10, by their words.
import type { Sql } from '../store/database.ts';
import type { Parsed } from './args.ts';
import { clientCreate, clientList, clientRevoke, clientSecretAdd, clientSecretRevoke } from './client.ts';
import { accountConnection, generate, importFile } from './data.ts';
import { demo } from './demo.ts';
import { fxImport, fxList } from './fx.ts';
import { orgCreate, planSet, subscriptionLock } from './org.ts';
import type { CommandResult } from './output.ts';

export type CommandDeps = {
  sql: Sql;
  now: number;
  progress: (line: string) => void;
  /** Reads a file named on the command line (only the entry file touches the file system). */
  readText?: (path: string) => Promise<string>;
  /** Whether the database speaks COPY (real PostgreSQL does; the embedded socket does not). */
  copy?: boolean;
};

type Command = (deps: CommandDeps, args: Parsed) => Promise<CommandResult>;

export const COMMANDS: Record<string, Command> = {
  demo: ({ sql, now }, args) => demo(sql, args, now),
  'org create': ({ sql }, args) => orgCreate(sql, args),
  'plan set': ({ sql }, args) => planSet(sql, args),
  'subscription lock': ({ sql }, args) => subscriptionLock(true)(sql, args),
  'subscription unlock': ({ sql }, args) => subscriptionLock(false)(sql, args),
  'client create': ({ sql }, args) => clientCreate(sql, args),
  'client secret add': ({ sql, now }, args) => clientSecretAdd(sql, args, now),
  'client secret revoke': ({ sql }, args) => clientSecretRevoke(sql, args),
  'client revoke': ({ sql }, args) => clientRevoke(sql, args),
  'client list': ({ sql }, args) => clientList(sql, args),
  'account connection': ({ sql }, args) => accountConnection(sql, args),
  import: ({ sql, now, readText, copy }, args) =>
    importFile(sql, args, { now, copy: copy ?? false, readText: readText ?? (() => Promise.reject(new Error('no file access'))) }),
  generate: ({ sql, now, progress }, args) => generate(sql, args, now, progress),
  'fx import': ({ sql, readText }, args) => fxImport(sql, args, readText ?? (() => Promise.reject(new Error('no file access')))),
  'fx list': ({ sql }, args) => fxList(sql, args),
};
