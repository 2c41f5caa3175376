import { onTestFinished } from 'vitest';
import { Resend } from 'resend';
import { startMailSink, type MailSinkOptions } from '../../scripts/mail-sink/server';

/** A fresh sink per test, closed when the test ends, and an SDK client pointed at it. */
export async function openSink(options: MailSinkOptions = {}, apiKey = 're_test_x') {
  const sink = await startMailSink({ port: 0, ...options });
  onTestFinished(() => sink.close());
  const resend = new Resend(apiKey, { baseUrl: sink.url });
  return { sink, resend, apiKey };
}

export const email = (overrides: Record<string, unknown> = {}) => ({
  from: 'Scout <alerts@scout.test>',
  to: 'ada@example.com',
  subject: 'New jobs for you',
  html: '<p>3 new postings</p>',
  text: '3 new postings',
  ...overrides,
});
