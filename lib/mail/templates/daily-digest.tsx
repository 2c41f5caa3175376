import { Heading, Text } from '@react-email/components';
import { postingsPreheader } from '../email-subject';
import type { EmailItem } from './email-item';
import { linkStyle } from './email-styles';
import { EmailLayout, type FooterLinks } from './layout';
import { PostingCard } from './posting-card';

export type DailyDigestProps = {
  dayLabel: string;
  items: EmailItem[];
  moreCount: number;
  footer: FooterLinks;
  /** keywordsOnlyNote: keywords alone decided some items. */
  note?: string | null;
  /** nearMissLine: what the keywords matched that this digest leaves out, and why; links to the preferences page. */
  nearMiss?: string | null;
  /** describeNextDigest: when the next digest comes, in the subscriber's zone. */
  nextDigest?: string | null;
  /** sourcesCheckedLine: how many postings and sources were checked, and any source unreachable. */
  sourcesLine?: string | null;
  /** The inbox preview line; the titles after the first unless given (the prerenderer gives its own mark, prerendered-emails.tsx). */
  preview?: string;
};

export function DailyDigestEmail({
  dayLabel,
  items,
  moreCount,
  footer,
  note,
  nearMiss,
  nextDigest,
  sourcesLine,
  preview,
}: DailyDigestProps) {
  return (
    <EmailLayout preview={preview ?? postingsPreheader(items, moreCount)} footer={footer} footerNote={sourcesLine}>
      <Heading as="h1" style={{ fontSize: 22, margin: '8px 0 4px' }}>
        Your digest for {dayLabel}
      </Heading>
      <Text style={{ fontSize: 14, color: '#4b5563', margin: 0 }}>
        {items.length === 1 ? 'The best fit since your last digest.' : `The ${items.length} best fits since your last digest, best first.`}
      </Text>
      {note ? <Text style={{ fontSize: 13, color: '#92400e', margin: '6px 0 0' }}>{note}</Text> : null}
      {items.map((item, i) => (
        <PostingCard key={i} item={item} />
      ))}
      {moreCount > 0 ? (
        <Text style={{ fontSize: 13, color: '#4b5563' }}>
          {moreCount} more posting{moreCount === 1 ? '' : 's'} matched with a lower score. Narrow your keywords to see only the best.
        </Text>
      ) : null}
      {nextDigest ? <Text style={{ fontSize: 13, color: '#4b5563' }}>{nextDigest}</Text> : null}
      {nearMiss ? (
        <Text style={{ fontSize: 13, color: '#4b5563' }}>
          {nearMiss}{' '}
          {footer.preferencesUrl ? (
            <a href={footer.preferencesUrl} style={linkStyle}>
              Change your preferences
            </a>
          ) : null}
        </Text>
      ) : null}
    </EmailLayout>
  );
}

DailyDigestEmail.PreviewProps = {
  dayLabel: 'Monday 30 November',
  items: [
    {
      title: 'Firestore data model review',
      url: 'https://example.com/jobs/2',
      budget: '$60/hour',
      published: '30 Nov 2026, 03:10 UTC',
      excerpt: 'Looking for someone to review our Firestore schema and security rules…',
      reasons: ['“firestore” in the title'],
      score: 55,
    },
  ],
  moreCount: 0,
  sourcesLine: 'Checked 412 postings from 6 sources; 1 source unreachable since Tuesday.',
  footer: {
    unsubscribeUrl: 'https://scout.example.com/unsubscribe?token=preview',
    archiveUrl: 'https://scout.example.com/archive?token=preview',
  },
} satisfies DailyDigestProps;
