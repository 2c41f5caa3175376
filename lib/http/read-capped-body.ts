/** A web stream of bytes from any implementation: the platform's Request, undici's fetch. */
export type ByteStream = {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
  cancel(): Promise<void>;
};

/**
 * Reads a body (a fetched feed, a posted form) up to `maxBytes`, counting the bytes that actually
 * arrive: Content-Length can be absent (chunked) or wrong, and gzip can
 * expand far past it. Returns null, having cancelled the stream, as soon as
 * the body outgrows the cap.
 */
export async function readCappedBody(body: ByteStream | null, maxBytes: number): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done || !value) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
