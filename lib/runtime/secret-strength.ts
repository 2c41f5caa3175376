/**
 * A rough, deliberately pessimistic estimate of a secret's entropy in bits: the length of its
 * shortest repeating unit times log2 of the different characters in that unit. It is no measure
 * of a good secret (nothing read from a string can be); it catches the bad ones an operator types
 * by hand — 'a' × 32 (0 bits), 'password' × 4 (8 × log2 7 ≈ 22), 'abc' repeated, a run of one
 * character with one other at the end — which a length check alone lets through. A random
 * `openssl rand -base64 32` value estimates above 200, `openssl rand -hex 32` at 256.
 */
export function estimatedSecretBits(secret: string): number {
  const chars = [...secret];
  const unit = chars.slice(0, shortestPeriod(chars));
  const different = new Set(unit).size;
  return different <= 1 ? 0 : unit.length * Math.log2(different);
}

/**
 * The length of the shortest unit the string is a repetition of, a trailing partial unit allowed
 * ('abcab' → 3); the whole length when there is none. The prefix function, so linear in the length.
 */
function shortestPeriod(chars: string[]): number {
  if (chars.length === 0) return 0;
  const border = new Array<number>(chars.length).fill(0);
  for (let i = 1, k = 0; i < chars.length; i++) {
    while (k > 0 && chars[i] !== chars[k]) k = border[k - 1];
    if (chars[i] === chars[k]) k += 1;
    border[i] = k;
  }
  return chars.length - border[chars.length - 1];
}
