// Opens the store: PostgreSQL at DATABASE_URL (behind a pooler or not), or the embedded database (docs/decisions.md
// §1), which a second process reaches through the first's socket.
import { connect } from 'node:net';
import postgres from 'postgres';
import { detectPoolMode, postgresPool, silent, type Database, type DatabaseOptions } from './database.ts';
import { claimDataDir, openEmbedded } from './embedded.ts';

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const poolMode = options.poolMode === 'auto' ? await detectPoolMode(options.databaseUrl) : options.poolMode;
    return postgresPool({ ...options, databaseUrl: options.databaseUrl, poolMode });
  }
  if (options.dataDir) {
    // A holder that exits between finding its socket and connecting to it (one command piped into another) leaves
    // the folder free: claimed again.
    for (let attempt = 1; ; attempt++) {
      const claim = await claimDataDir(options.dataDir, options.holder, options.waiting);
      if (!('shared' in claim)) return openEmbedded(options, claim.release);
      // A server already holds this folder: talk to its socket rather than open the files twice.
      const sql = postgres({ path: claim.shared, user: 'postgres', database: 'postgres', max: 1, ...silent });
      try {
        await sql`select 1`;
      } catch (error) {
        await sql.end({ timeout: 0 }).catch(() => {});
        const code = (error as { code?: string }).code;
        if (attempt < 5 && (code === 'ENOENT' || code === 'ECONNREFUSED')) continue;
        throw error;
      }
      const path = claim.shared;
      return {
        sql,
        poolMode: 'session',
        description: `embedded (shared, ${options.dataDir})`,
        close: () => sql.end({ timeout: 5 }),
        served: () =>
          new Promise<boolean>((resolve) => {
            const probe = connect({ path }, () => (probe.destroy(), resolve(true)));
            probe.on('error', () => resolve(false));
          }),
      };
    }
  }
  return openEmbedded(options, async () => {});
}
