import { Heading, Text } from '@react-email/components';
import { postingsPreheader } from '../email-subject';
import type { EmailItem } from './email-item';
import { EmailLayout, type FooterLinks } from './layout';
import { PostingCard } from './posting-card';

export type InstantAlertProps = {
  items: EmailItem[];
  footer: FooterLinks;
  /** keywordsOnlyNote: keywords alone decided some items. */ note?: string | null;
  /** The inbox preview line; the titles after the first unless given (the prerenderer gives its own mark, prerendered-emails.tsx). */
  preview?: string;
};

export function InstantAlertEmail({ items, footer, note, preview }: InstantAlertProps) {
  const heading = items.length === 1 ? 'A new posting fits you' : `${items.length} new postings fit you`;
  return (
    <EmailLayout preview={preview ?? postingsPreheader(items)} footer={footer}>
      <Heading as="h1" style={{ fontSize: 22, margin: '8px 0 4px' }}>
        {heading}
      </Heading>
      <Text style={{ fontSize: 14, color: '#4b5563', margin: 0 }}>Best fit first.</Text>
      {note ? <Text style={{ fontSize: 13, color: '#92400e', margin: '6px 0 0' }}>{note}</Text> : null}
      {items.map((item, i) => (
        <PostingCard key={i} item={item} />
      ))}
    </EmailLayout>
  );
}

InstantAlertEmail.PreviewProps = {
  items: [
    {
      title: 'Senior Next.js engineer for a marketplace rebuild',
      url: 'https://example.com/jobs/1',
      budget: '$4,000 fixed',
      published: '30 Nov 2026, 05:40 UTC',
      excerpt: 'We are rebuilding our marketplace front end with Next.js and TypeScript…',
      reasons: ['“next.js” in the title', '“typescript” in the skills'],
      score: 80,
    },
  ],
  footer: {
    unsubscribeUrl: 'https://scout.example.com/unsubscribe?token=preview',
    archiveUrl: 'https://scout.example.com/archive?token=preview',
  },
} satisfies InstantAlertProps;
