import { describe, expect, it } from 'vitest';
import { email, openSink } from './sink-fixture';

describe('mail sink: inbox page', () => {
  it('escapes every value and sandboxes the HTML body', async () => {
    const { sink, resend } = await openSink();
    await resend.emails.send(
      email({
        subject: '<script>alert(1)</script>',
        html: '<p class="x">Hi & "bye"</p><script>alert(2)</script>',
        text: '<b>plain</b>',
        headers: { 'List-Unsubscribe': '<https://scout.test/u?t=a&b=1>' },
      }),
      { idempotencyKey: 'alert_"u1"' },
    );
    const res = await fetch(`${sink.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();

    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain(
      '<iframe sandbox="" title="HTML body" srcDoc="&lt;p class=&quot;x&quot;&gt;Hi &amp; &quot;bye&quot;&lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;">',
    );
    expect(page).toContain('<pre>&lt;b&gt;plain&lt;/b&gt;</pre>');
    expect(page).toContain('List-Unsubscribe');
    expect(page).toContain('&lt;https://scout.test/u?t=a&amp;b=1&gt;');
    expect(page).toContain('alert_&quot;u1&quot;');
  });

  it('lists newest first and filters by ?to=', async () => {
    const { sink, resend } = await openSink();
    await resend.emails.send(email({ to: 'a@example.com', subject: 'Subject Older' }));
    await resend.emails.send(email({ to: 'b@example.com', subject: 'Subject Newer' }));

    const all = await (await fetch(`${sink.url}/`)).text();
    expect(all.indexOf('Subject Newer')).toBeLessThan(all.indexOf('Subject Older'));
    const onlyA = await (await fetch(`${sink.url}/?to=${encodeURIComponent('a@example.com')}`)).text();
    expect(onlyA).toContain('Subject Older');
    expect(onlyA).not.toContain('Subject Newer');
  });
});
