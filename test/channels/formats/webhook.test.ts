import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { renderChannelMessage } from '../../../lib/channels/formats/render-channel-message';
import { renderWebhook, WEBHOOK_MAX_BYTES } from '../../../lib/channels/formats/webhook';
import { alertOf, digestOf, LINKS, longestPosting, realisticPostings, TARGET, testOf } from './channel-postings';

const payload = (content: Parameters<typeof renderChannelMessage>[1], target = TARGET) =>
  JSON.parse(renderChannelMessage('webhook', content, target).body);

describe('the webhook payload, version 1', () => {
  it('an alert carries each posting’s fields, how many more there are and the links', () => {
    const json = payload(alertOf(realisticPostings(3), 2));
    expect(json.type).toBe('postings.alert');
    expect(json.version).toBe(1);
    expect(json.timestamp).toBe('2026-12-06T08:00:03.250Z');
    expect(json.data.more).toBe(2);
    expect(json.data.links).toEqual(LINKS);
    expect(json.data.postings[2]).toEqual({
      id: realisticPostings(3)[2].id,
      title: 'Contract React Native developer for a 3-month fintech app build',
      url: 'https://www.upwork.com/jobs/~01a2b3c4d5e6f7a8b9',
      company: null,
      place: null,
      pay: '$45.00–$70.00/hour',
      reasons: ['“react” in the title'],
      fit: 71,
      score: 63,
      source: 'Upwork',
    });
    expect(json.data.postings[1].fit).toBeNull();
  });

  it('a digest names its period; the test event is scout.test with a sentence and the links', () => {
    const digest = payload(digestOf(realisticPostings(2)));
    expect(digest.type).toBe('postings.digest');
    expect(digest.data.period).toBe('2026-12-06');
    const test = payload(testOf(null));
    expect(test).toEqual({
      type: 'scout.test',
      version: 1,
      timestamp: '2026-12-06T08:00:03.250Z',
      data: { message: expect.stringContaining('2xx'), links: LINKS },
    });
  });

  it('the timestamp is the message’s creation time, whenever it is rendered or retried', () => {
    const content = alertOf(realisticPostings(1));
    const first = renderChannelMessage('webhook', content, TARGET).body;
    const later = renderChannelMessage('webhook', content, { chatId: null, createdAt: new Date(TARGET.createdAt) }).body;
    expect(later).toBe(first);
  });

  it('strings are capped and cleaned, not escaped; an unsafe URL is null; fit and score are whole numbers 0–100', () => {
    const long = longestPosting(1);
    const json = payload(alertOf([{ ...long, url: 'javascript:alert(1)', fit: 101.4, score: -3 }]));
    const posting = json.data.postings[0];
    expect(posting.url).toBeNull();
    expect(posting.title.length).toBeLessThanOrEqual(500);
    expect(posting.title.endsWith('…')).toBe(true);
    expect(posting.title).toContain('é&<*');
    expect(posting.reasons).toHaveLength(10);
    expect([posting.fit, posting.score]).toEqual([100, 0]);
  });

  it('at most 100 postings a message; the rest are counted in more', () => {
    const json = payload(digestOf(realisticPostings(130), 5));
    expect(json.data.postings).toHaveLength(100);
    expect(json.data.more).toBe(35);
  });

  it('at most WEBHOOK_MAX_BYTES a body: 100 postings at every cap would be ~700 kB in wide text; the best that fit are sent, the rest counted in more', () => {
    // Every string in 3-byte characters, at each field's cap: the most bytes a posting can take.
    const widest = Array.from({ length: 100 }, (_, i) => {
      const wide = (n: number) => String.fromCodePoint(0x4e00 + i).repeat(n);
      return {
        ...longestPosting(i),
        title: wide(10_000),
        company: wide(500),
        place: wide(500),
        pay: wide(300),
        source: wide(300),
        reasons: Array.from({ length: 12 }, () => wide(400)),
      };
    });
    const { body } = renderChannelMessage('webhook', digestOf(widest, 7), TARGET);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(WEBHOOK_MAX_BYTES);
    const json = JSON.parse(body);
    expect(json.data.postings.length).toBeGreaterThan(0);
    expect(json.data.postings.length).toBeLessThan(100);
    expect(json.data.more).toBe(100 - json.data.postings.length + 7);
    // One posting more would not have fitted: the cap, not a guess, decided how many.
    const oneMore = renderWebhook({ ...digestOf(widest.slice(0, json.data.postings.length + 1), 0) }, TARGET.createdAt);
    expect(Buffer.byteLength(JSON.stringify(oneMore))).toBeGreaterThan(WEBHOOK_MAX_BYTES);
  });

  it('the example in docs/channels.md is what Scout sends for it, field for field', () => {
    const doc = readFileSync('docs/channels.md', 'utf8');
    const section = doc.slice(doc.indexOf('## Webhook payload'));
    const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]);
    expect(example).toEqual(payload(alertOf(realisticPostings(2), 3)));
  });

  it('a receiver verifies the exact body with the standardwebhooks package, as the docs’ snippet does', () => {
    const secret = `whsec_${Buffer.from('a secret of thirty-two bytes....').toString('base64')}`;
    const body = renderChannelMessage('webhook', alertOf(realisticPostings(2)), TARGET).body;
    const now = new Date();
    const headers = {
      'webhook-id': 'msg_3b9f0c2e5d1a',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('msg_3b9f0c2e5d1a', now, body),
    };
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // One changed byte, and the receiver refuses it.
    expect(() => new Webhook(secret).verify(body.replace('Doist', 'D0ist'), headers)).toThrow();
  });
});
