import { Link, Section, Text } from '@react-email/components';
import type { EmailItem } from './email-item';

export function PostingCard({ item }: { item: EmailItem }) {
  const meta = [item.employer, item.budget, item.published].filter(Boolean).join(' · ');
  return (
    <Section style={{ borderLeft: '3px solid #2563eb', padding: '4px 0 4px 14px', margin: '18px 0' }}>
      <Text style={{ fontSize: 17, fontWeight: 600, margin: '0 0 4px', lineHeight: '24px' }}>
        {item.url ? (
          <Link href={item.url} style={{ color: '#111827' }}>
            {item.title}
          </Link>
        ) : (
          item.title
        )}
      </Text>
      {meta ? <Text style={{ fontSize: 13, color: '#374151', margin: '0 0 6px' }}>{meta}</Text> : null}
      {item.seenOn && item.seenOn.length > 0 ? (
        <Text style={{ fontSize: 12, color: '#6b7280', margin: '0 0 6px' }}>
          Seen on{' '}
          {item.seenOn.map((seen, i) => (
            <span key={i}>
              {i > 0 ? ', ' : ''}
              {seen.url ? (
                <Link href={seen.url} style={{ color: '#6b7280' }}>
                  {seen.label}
                </Link>
              ) : (
                seen.label
              )}
            </span>
          ))}
        </Text>
      ) : null}
      {item.history ? <Text style={{ fontSize: 12, color: '#92400e', margin: '0 0 6px' }}>{item.history}</Text> : null}
      {item.excerpt ? <Text style={{ fontSize: 14, color: '#374151', margin: '0 0 6px', lineHeight: '20px' }}>{item.excerpt}</Text> : null}
      <Text style={{ fontSize: 12, color: '#6b7280', margin: 0 }}>Why: {item.reasons.join('; ')}</Text>
      {item.fit != null ? (
        <Text style={{ fontSize: 12, color: '#374151', margin: '2px 0 0' }}>
          AI fit {item.fit}/100{item.fitReason ? `: ${item.fitReason}` : ''}
        </Text>
      ) : null}
      {item.notAFitUrl ? (
        <Text style={{ fontSize: 12, margin: '4px 0 0' }}>
          <Link href={item.notAFitUrl} style={{ color: '#6b7280' }}>
            Not a fit
          </Link>
        </Text>
      ) : null}
    </Section>
  );
}
