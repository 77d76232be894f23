// How many runs a property test makes (CONTRIBUTING.md, "Tests"): a fixed few in every run, so CI answers in minutes;
// the full count under `npm run test:deep` (TEST_DEEP=1); FUZZ_RUNS overrides both. fast-check prints the seed of a
// failure; FUZZ_SEED=that seed runs the same cases again.

/** fast-check's options for a property: `quick` runs, or `deep` under TEST_DEEP=1, with FUZZ_SEED when given. */
export function propertyRuns(deep: number, quick: number): { numRuns: number; seed?: number } {
  const numRuns = Number(process.env.FUZZ_RUNS) || (process.env.TEST_DEEP === '1' ? deep : quick);
  const seed = Number(process.env.FUZZ_SEED);
  return Number.isInteger(seed) && process.env.FUZZ_SEED ? { numRuns, seed } : { numRuns };
}
