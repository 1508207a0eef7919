/**
 * The test tier: `npm test` is the developer's five-minute loop; `npm run test:full` (what CI runs
 * through `.ci/run`) sets SCALPEL_TEST_TIER=full and gets the longer runs — more generated cases,
 * the 2,000-call fuzz, the second TypeScript backend on every suite. A case that only grows with
 * the tier asks for its size here, so both sizes are visible where the case is written.
 */
export const fullTier = process.env.SCALPEL_TEST_TIER === "full";

/** `quick` in `npm test`, `full` in the full tier. */
export function byTier<T>(quick: T, full: T): T {
  return fullTier ? full : quick;
}

/** `{ skip: scaleCase }`: a case that is about size (megabytes, thousands), run in the full tier. */
export const scaleCase: string | false = fullTier
  ? false
  : "a scale case: it runs in the full tier (npm run test:full, what CI runs)";

/**
 * `{ skip: fullTierCase(why) }`: a case the quick loop leaves to the full tier because another one
 * there proves the same path (`why` names it), or it waits on a timing window by design.
 */
export function fullTierCase(why: string): string | false {
  return fullTier ? false : `runs in the full tier (npm run test:full, what CI runs): ${why}`;
}
