import { describe, expect, it } from 'vitest';
import { renderSlack, slackUrl, type SlackBlock } from '../../../lib/channels/formats/slack';
import { alertOf, digestOf, LINKS, realisticPostings, testOf } from './channel-postings';
import { slackBreaks } from './platform-limits';

const textOf = (block: SlackBlock) => (block.type === 'section' || block.type === 'header' ? block.text.text : '');

describe('Slack Block Kit for an incoming webhook', () => {
  it('an alert: a header, one section per posting with its linked title, facts, rating, reasons and source, then the links', () => {
    const message = renderSlack(alertOf(realisticPostings(3)));
    expect(message.unfurl_links).toBe(false);
    expect(message.unfurl_media).toBe(false);
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Scout: 3 new matches', emoji: true } });
    expect(textOf(message.blocks[1])).toBe(
      [
        '*<https://remotive.com/remote-jobs/software-dev/senior-frontend-engineer-react-typescript-1934512|Senior Frontend Engineer (React/TypeScript)>*',
        'Doist · Remote · Europe · €70,000–€90,000/year',
        'Fit 86/100 · Why: “react” in the title; “typescript” in the title; “remote” in the description',
        '_via Remotive_',
      ].join('\n'),
    );
    // Without the model's verdict, the keyword score; without company or pay, no empty parts.
    expect(textOf(message.blocks[2])).toContain('GitLab · Remote, Americas\nScore 58/100 · Why:');
    expect(textOf(message.blocks[3])).toContain('>*\n$45.00–$70.00/hour\nFit 71/100');
    expect(message.blocks.at(-2)).toEqual({ type: 'divider' });
    expect(message.blocks.at(-1)).toEqual({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `<${LINKS.preferences}|Pause or remove this channel> · <${LINKS.archive}|Your archive>`, verbatim: true },
      ],
    });
    expect(message.text).toBe(
      'Scout: 3 new matches — Senior Frontend Engineer (React/TypeScript) · Full-Stack Developer – Node.js &amp; PostgreSQL · Contract React Native developer for a 3-month fintech app build',
    );
    expect(slackBreaks(message)).toEqual([]);
  });

  it('a digest names its period and says how many more are in the archive', () => {
    const message = renderSlack(digestOf(realisticPostings(20), 4));
    expect(textOf(message.blocks[0])).toBe('Scout digest for 2026-12-06: 24 new matches');
    expect(message.blocks).toHaveLength(1 + 20 + 1 + 2);
    expect(textOf(message.blocks[21])).toBe(`and 4 more — <${LINKS.archive}|see your archive>`);
    expect(slackBreaks(message)).toEqual([]);
  });

  it('four reasons or more: the first three, then "and N more"', () => {
    const posting = { ...realisticPostings(1)[0], reasons: ['one', 'two', 'three', 'four', 'five'] };
    expect(textOf(renderSlack(alertOf([posting])).blocks[1])).toContain('Why: one; two; three and 2 more');
  });

  it('the verification shows the code alone in a code span, easy to read and copy, and the preferences link', () => {
    const message = renderSlack(testOf('K7Q-42M'));
    expect(textOf(message.blocks[1])).toBe(
      'Your Scout verification code:\n`K7Q-42M`\nType it on your preferences page to connect this channel. Did not ask for it? Ignore this message.',
    );
    expect(message.text).toBe('Scout verification: K7Q-42M');
    expect(JSON.stringify(message)).not.toContain(LINKS.archive);
    // A code is Scout's, but only its letters, digits and dashes are ever shown.
    expect(textOf(renderSlack(testOf('12`<!here>')).blocks[1])).toContain('`12here`');
  });

  it('a URL holding | or > cannot end the link early or choose its own label; & is escaped as Slack asks', () => {
    expect(slackUrl('https://jobs.example.com/a|b>c?x=1&y=<2>')).toBe('https://jobs.example.com/a%7Cb%3Ec?x=1&amp;y=%3C2%3E');
    const posting = { ...realisticPostings(1)[0], url: 'https://jobs.example.com/a|<!channel>', title: 'Real title' };
    const section = textOf(renderSlack(alertOf([posting])).blocks[1]);
    expect(section.startsWith('*<https://jobs.example.com/a%7C%3C!channel%3E|Real title>*')).toBe(true);
  });
});
