// Builds the single executable (npm run build) into a temporary folder, once per test file.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { temporaryDir } from './server.ts';

/** Bun's --compile targets the machine it runs on; the build script writes Linux x64 (README "One executable"). */
export const canBuild = process.platform === 'linux' && process.arch === 'x64';

let built: { path: string } | undefined;

/** The executable's path; its folder is removed when the test process exits. */
export function buildExecutable(): { path: string } {
  if (built) return built;
  const dir = temporaryDir();
  const path = join(dir.path, 'readout');
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--outfile', path], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
  process.on('exit', dir.remove);
  built = { path };
  return built;
}
