// A test that needs what `npm ci` does not install says so and is counted as skipped, never as passed: uvu has no
// skip at run time, so the line below is what `.ci/run` counts (and subtracts from uvu's passed).

/** When `skip` holds, prints `# skipped: SUITE › TEST: WHY` and returns true; the test then returns at once. */
export function skipped(skip: boolean, suiteName: string, test: string, why: string): boolean {
  if (skip) process.stdout.write(`\n# skipped: ${suiteName} › ${test}: ${why}\n`);
  return skip;
}
