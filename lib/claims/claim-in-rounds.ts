/**
 * The skeleton both claim steps share (deliveries, due digests): plan and commit what is pending,
 * keep what lost a race to a concurrent writer, and try again with fresh reads, up to `maxRounds`.
 * What is still pending then is returned, not thrown: the caller reports it the one visible way
 * (logged, counted, run marked partial), the rest of the run goes on, and the next run claims it.
 */
export async function claimInRounds<T>(pending: T[], maxRounds: number, round: (pending: T[]) => Promise<T[]>): Promise<T[]> {
  let left = pending;
  for (let n = 0; left.length > 0 && n < maxRounds; n++) left = await round(left);
  return left;
}
