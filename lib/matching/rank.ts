/** How a subscriber's items are ranked: by the model's fit when there is one, else by the keyword score (both 0–100). */
export const rankOf = (item: { score: number; fit?: number | null }) => item.fit ?? item.score;
