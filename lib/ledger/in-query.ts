/** Firestore's `in` takes at most 30 values. */
export const IN_LIMIT = 30;

/** The values in lists of at most IN_LIMIT, one `in` query each. */
export function forInQueries<T>(items: T[]): T[][] {
  const lists: T[][] = [];
  for (let i = 0; i < items.length; i += IN_LIMIT) lists.push(items.slice(i, i + IN_LIMIT));
  return lists;
}
