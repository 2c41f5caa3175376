import { describe, expect, it } from 'vitest';
import { readBody, readForm } from '../../lib/http/read-body';

const FORM = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };

const streamOf = (bytes: Uint8Array, chunk = 1024) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunk) controller.enqueue(bytes.slice(i, i + chunk));
      controller.close();
    },
  });

describe('readBody, the one request-body reader', () => {
  it('reads a form within the cap', async () => {
    const form = await readForm(new Request('http://x/', { method: 'POST', body: 'a=1&b=%3Cx%3E', headers: FORM }), 100);
    expect(form.ok && Object.fromEntries(form.fields)).toEqual({ a: '1', b: '<x>' });
  });

  it('refuses another media type without reading it', async () => {
    const body = await readBody(new Request('http://x/', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }), {
      types: ['application/x-www-form-urlencoded'],
      maxBytes: 100,
    });
    expect(body).toEqual({ ok: false, reason: 'unsupported-type', type: 'application/json' });
  });

  it('refuses a body over the cap, announced or streamed without a length', async () => {
    const big = 'a='.concat('x'.repeat(500));
    const announced = await readForm(new Request('http://x/', { method: 'POST', body: big, headers: FORM }), 100);
    expect(announced).toEqual({ ok: false, reason: 'too-large' });
    const streamed = await readForm(
      new Request('http://x/', {
        method: 'POST',
        body: streamOf(new TextEncoder().encode(big), 64),
        headers: FORM,
        duplex: 'half',
      } as RequestInit),
      100,
    );
    expect(streamed).toEqual({ ok: false, reason: 'too-large' });
  });

  it('strict decoding refuses bytes that are not UTF-8; lenient decoding replaces them', async () => {
    const bad = () => new Request('http://x/', { method: 'POST', body: new Uint8Array([0x61, 0x3d, 0xff]), headers: FORM });
    const types = ['application/x-www-form-urlencoded'];
    expect(await readBody(bad(), { types, maxBytes: 100, utf8: 'strict' })).toEqual({ ok: false, reason: 'not-utf8' });
    expect(await readBody(bad(), { types, maxBytes: 100 })).toMatchObject({ ok: true, text: 'a=\uFFFD' });
  });
});
