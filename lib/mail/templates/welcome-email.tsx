import { Heading, Text } from '@react-email/components';
import { postingsPreheader } from '../email-subject';
import type { EmailItem } from './email-item';
import { EmailLayout, type FooterLinks } from './layout';
import { PostingCard } from './posting-card';

export type WelcomeEmailProps = {
  items: EmailItem[];
  /** The window the matches come from, in days (the preview's). */
  windowDays: number;
  /** When the next email comes, in words (describeNextEmail): the welcome is the only email until then. */
  nextEmail: string;
  footer: FooterLinks;
  /** keywordsOnlyNote: keywords alone decided some items. */
  note?: string | null;
};

const matchesOf = (count: number) => (count === 1 ? '1 match' : `${count} matches`);

export function WelcomeEmail({ items, windowDays, nextEmail, footer, note }: WelcomeEmailProps) {
  return (
    <EmailLayout preview={postingsPreheader(items)} footer={footer}>
      <Heading as="h1" style={{ fontSize: 22, margin: '8px 0 4px' }}>
        Welcome to Scout
      </Heading>
      <Text style={{ fontSize: 14, color: '#4b5563', margin: 0 }}>
        Your subscription is confirmed. While you wait for new postings, here {items.length === 1 ? 'is' : 'are'} the best{' '}
        {matchesOf(items.length)} of the last {windowDays} days, best fit first.
      </Text>
      <Text style={{ fontSize: 14, color: '#4b5563', margin: '6px 0 0' }}>{nextEmail}</Text>
      {note ? <Text style={{ fontSize: 13, color: '#92400e', margin: '6px 0 0' }}>{note}</Text> : null}
      {items.map((item, i) => (
        <PostingCard key={i} item={item} />
      ))}
    </EmailLayout>
  );
}
