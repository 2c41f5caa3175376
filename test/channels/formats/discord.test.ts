import { describe, expect, it } from 'vitest';
import { discordUrl, renderDiscord } from '../../../lib/channels/formats/discord';
import { renderChannelMessage } from '../../../lib/channels/formats/render-channel-message';
import { alertOf, digestOf, LINKS, realisticPostings, TARGET, testOf } from './channel-postings';
import { discordBreaks } from './platform-limits';

describe('a Discord webhook execute body', () => {
  it('an alert: the headline and links in content, one embed per posting, posted as Scout, no mention allowed', () => {
    const message = renderDiscord(alertOf(realisticPostings(2)));
    expect(message.username).toBe('Scout');
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.content).toBe(
      `**Scout: 2 new matches**\n[Pause or remove this channel](<${LINKS.preferences}>) · [Your archive](<${LINKS.archive}>)`,
    );
    expect(message.embeds[0]).toEqual({
      title: 'Senior Frontend Engineer \\(React/TypeScript\\)',
      url: 'https://remotive.com/remote-jobs/software-dev/senior-frontend-engineer-react-typescript-1934512',
      description: 'Why: “react” in the title; “typescript” in the title; “remote” in the description\n*via Remotive*',
      fields: [
        { name: 'Company', value: 'Doist', inline: true },
        { name: 'Place', value: 'Remote · Europe', inline: true },
        { name: 'Pay', value: '€70,000–€90,000/year', inline: true },
        { name: 'Fit', value: '86/100', inline: true },
      ],
      color: 0x2563eb,
    });
    expect(message.embeds[1].fields.map((f) => f.name)).toEqual(['Company', 'Place', 'Score']);
    expect(message.embeds[1].title).toBe('Full\\-Stack Developer – Node.js & PostgreSQL');
    expect(discordBreaks(message)).toEqual([]);
  });

  it('a digest of 12: ten embeds, the most a message takes, and "and 2 more" with the archive link', () => {
    const { body } = renderChannelMessage('discord', digestOf(realisticPostings(12)), TARGET);
    const message = JSON.parse(body);
    expect(message.embeds).toHaveLength(10);
    expect(message.content).toContain('**Scout digest for 2026-12-06: 12 new matches**\nand 2 more — [see your archive](<');
    expect(discordBreaks(message)).toEqual([]);
  });

  it('Scout’s longest links (a 254-character address’s, ~700 characters each) fit the 2,000 characters of content: the archive linked once', () => {
    const longLinks = {
      preferences: `https://scout.example.com/preferences?token=${'t'.repeat(660)}`,
      archive: `https://scout.example.com/archive?token=${'a'.repeat(660)}`,
    };
    const { body } = renderChannelMessage('discord', { ...digestOf(realisticPostings(12)), links: longLinks }, TARGET);
    const message = JSON.parse(body);
    expect(message.content.length).toBeLessThanOrEqual(2_000);
    expect(message.content.split(longLinks.archive)).toHaveLength(2);
    expect(message.content).toContain(`[Pause or remove this channel](<${longLinks.preferences}>)`);
    expect(discordBreaks(message)).toEqual([]);
    // With nothing more to see, the links line carries the archive instead.
    const alert = renderDiscord({ ...alertOf(realisticPostings(2)), links: longLinks });
    expect(alert.content!.split(longLinks.archive)).toHaveLength(2);
  });

  it('the verification shows the code in a code span and no embeds', () => {
    const message = renderDiscord(testOf('K7Q-42M'));
    expect(message.content).toBe(
      `**Scout verification**\nYour Scout verification code:\n\`K7Q-42M\`\nType it on your preferences page to connect this channel. Did not ask for it? Ignore this message.\n[Pause or remove this channel](<${LINKS.preferences}>)`,
    );
    expect(message.embeds).toEqual([]);
  });

  it('a link target cannot close the masked link or its angle brackets early', () => {
    expect(discordUrl('https://scout.example.com/a(b)c[d]<e>')).toBe('https://scout.example.com/a%28b%29c%5Bd%5D%3Ce%3E');
    expect(discordUrl('javascript:alert(1)')).toBeNull();
  });
});
