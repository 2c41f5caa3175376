/**
 * A wall clock that leaps far past `budgetMs` after its first reading: the run starts normally,
 * then every time-budget check says stop. How the tests make a run run out of time without waiting.
 */
export function leapingClock(budgetMs: number): () => number {
  let calls = 0;
  return () => Date.now() + (calls++ > 0 ? 10 * budgetMs : 0);
}
