/**
 * How many attempts a claim step (deliveries or due digests) plans and commits before it gives up on
 * what still loses races to concurrent writers. The one cap for both steps: an attempt that loses
 * re-reads, and a loser sees the winner's write, so two or three attempts settle even eight runs
 * racing on the same pairs; ten leaves room without letting a pathological writer hold a run.
 */
export const MAX_CLAIM_ATTEMPTS = 10;

/**
 * The skeleton both claim steps share: plan and commit what is pending, keep what lost a race to a
 * concurrent writer, and try again with fresh reads, up to MAX_CLAIM_ATTEMPTS. What is still pending
 * then is given up — returned, never thrown: the step counts it in its `gaveUp`, and the cycle
 * reports it the one visible way (a `claim.gave_up` log line naming the step and the count,
 * RunStats.claimsGivenUp, the run marked partial). The rest of the run goes on; the next run
 * claims what was left.
 */
export async function claimInAttempts<T>(pending: T[], attempt: (pending: T[]) => Promise<T[]>): Promise<{ gaveUp: T[] }> {
  let left = pending;
  for (let n = 0; left.length > 0 && n < MAX_CLAIM_ATTEMPTS; n++) left = await attempt(left);
  return { gaveUp: left };
}
