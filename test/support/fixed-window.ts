/**
 * Scout's limiters count in fixed windows (`floor(now / windowMs)`), so a burst that straddles a
 * window's end is counted as two. A test that drives one through a real server, whose clock it
 * cannot set, starts its burst with at least `needMs` of the window left: it waits out the window's
 * end when less is left (at most `needMs`), and otherwise not at all.
 */
export async function startWellInsideWindow(windowMs: number, needMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
