// The single executable's commands (scripts/build.ts): `readout` or `readout serve` starts the server, `readout
// COMMAND` runs an operator command, each as `npm start` and `npm run readout --` do from a checkout.
import process from 'node:process';

export async function runExecutable(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command !== undefined && command !== 'serve') {
    await import('../cli.ts');
    return;
  }
  if (rest.length) {
    process.stderr.write(
      'readout: serve takes no arguments; its settings are environment variables (README "Configuration")\n',
    );
    process.exit(2);
  }
  await import('../main.ts');
}
