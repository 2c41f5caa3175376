import { describe, expect, it } from 'vitest';
import { renderChannelMessage } from '../../../lib/channels/formats/render-channel-message';
import { renderTelegram, telegramHref } from '../../../lib/channels/formats/telegram';
import { alertOf, digestOf, LINKS, realisticPostings, TARGET, testOf } from './channel-postings';
import { scanTelegramHtml, telegramBreaks } from './platform-limits';

describe('a Telegram sendMessage body in HTML parse mode', () => {
  it('an alert: the chat, HTML, no link preview; each posting a linked title in bold, its facts, rating, reasons and source', () => {
    const message = renderTelegram(alertOf(realisticPostings(2)), '-1001234567890');
    expect(message.chat_id).toBe('-1001234567890');
    expect(message.parse_mode).toBe('HTML');
    expect(message.link_preview_options).toEqual({ is_disabled: true });
    expect(message.text).toBe(
      [
        '<b>Scout: 2 new matches</b>',
        '<b><a href="https://remotive.com/remote-jobs/software-dev/senior-frontend-engineer-react-typescript-1934512">Senior Frontend Engineer (React/TypeScript)</a></b>\nDoist · Remote · Europe · €70,000–€90,000/year\nFit 86/100 · Why: “react” in the title; “typescript” in the title; “remote” in the description\n<i>via Remotive</i>',
        '<b><a href="https://boards.greenhouse.io/gitlab/jobs/7612093002?gh_src=scout">Full-Stack Developer – Node.js &amp; PostgreSQL</a></b>\nGitLab · Remote, Americas\nScore 58/100 · Why: “node” in the title; “postgres” in the skills\n<i>via Greenhouse: GitLab</i>',
        `<a href="${LINKS.preferences}">Pause or remove this channel</a> · <a href="${LINKS.archive}">Your archive</a>`,
      ].join('\n\n'),
    );
    expect(telegramBreaks(message)).toEqual([]);
  });

  it('the test message confirms the chat is connected, how to pause it and that /stop removes it', () => {
    const { text } = renderTelegram(testOf(null), '42');
    const { visible, hrefs } = scanTelegramHtml(text);
    expect(visible).toBe(
      'Connected to Scout\n\nThis chat now gets the matches you chose. Pause or remove it on your preferences page, or send /stop here.',
    );
    expect(hrefs).toEqual([LINKS.preferences]);
  });

  it('an href is quoted safely: & and " are entities, so no attribute can be added', () => {
    expect(telegramHref('https://jobs.example.com/a?x=1&y="2" onclick="x')).toBe(
      'https://jobs.example.com/a?x=1&amp;y=%222%22%20onclick=%22x',
    );
  });

  it('4096 counts what a reader sees: escaping a feed’s "&" five times over does not cost postings', () => {
    const ampersands = realisticPostings(40).map((p) => ({ ...p, title: '&'.repeat(150), company: '<>'.repeat(40) }));
    const { body } = renderChannelMessage('telegram', digestOf(ampersands), TARGET);
    const { text } = JSON.parse(body);
    const { visible } = scanTelegramHtml(text);
    expect(visible.length).toBeLessThanOrEqual(4096);
    // The HTML itself is far longer than what is counted, and fills the visible budget.
    expect(text.length).toBeGreaterThan(4096);
    expect(visible.length).toBeGreaterThan(3500);
  });

  it('emoji count as Telegram counts them, in UTF-16 code units', () => {
    const rockets = realisticPostings(40).map((p) => ({ ...p, title: '🚀'.repeat(100) }));
    const { body } = renderChannelMessage('telegram', digestOf(rockets), TARGET);
    const { visible } = scanTelegramHtml(JSON.parse(body).text);
    expect(visible.length).toBeLessThanOrEqual(4096);
    expect([...visible].length).toBeLessThan(visible.length);
  });
});
