/**
 * Bytes → string in the feed's declared encoding. Older feeds are still
 * served as ISO-8859-1 or windows-125x, declared either in Content-Type or
 * only in the XML declaration. Falls back to UTF-8.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | null): string {
  const label = sniffBom(bytes) ?? charsetOf(contentType) ?? xmlDeclaredEncoding(bytes) ?? 'utf-8';
  return createDecoder(label).decode(bytes);
}

function sniffBom(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

function charsetOf(contentType: string | null): string | null {
  const match = contentType ? /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType) : null;
  return match ? match[1] : null;
}

function xmlDeclaredEncoding(bytes: Uint8Array): string | null {
  // The declaration is ASCII by definition, so a latin1 peek is enough.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 256));
  const match = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  return match ? match[1] : null;
}

function createDecoder(label: string): TextDecoder {
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder('utf-8');
  }
}
