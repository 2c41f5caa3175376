import { Fragment } from 'react';
import { reasonsLine, type EmailItem } from './email-item';
import { linkStyle, primaryButton, secondaryButton } from './email-styles';

/**
 * One posting, as job boards' alerts show one: the title a link that looks like one, who hires and
 * what it pays, the excerpt and why Scout sent it, then two buttons a thumb can hit: "View posting"
 * and "Not a fit". Lean on purpose: a digest repeats this twenty times and Gmail clips an email past
 * 102 KB (test/mail/gmail-clip-size.test.tsx), so the lines are <div>s that inherit the card's
 * small grey text and say only how they differ, and each line is one text node.
 */
export function PostingCard({ item }: { item: EmailItem }) {
  const meta = [item.employer, item.budget, item.published].filter(Boolean).join(' · ');
  return (
    <div
      style={{ borderTop: '1px solid #e5e7eb', padding: '16px 0 4px', marginTop: 16, fontSize: 13, lineHeight: '20px', color: '#4b5563' }}
    >
      <div style={{ fontSize: 18, fontWeight: 600, lineHeight: '24px', marginBottom: 4 }}>
        {item.url ? (
          <a href={item.url} style={linkStyle}>
            {item.title}
          </a>
        ) : (
          item.title
        )}
      </div>
      {meta ? <div style={{ fontSize: 14, color: '#374151' }}>{meta}</div> : null}
      {item.seenOn && item.seenOn.length > 0 ? (
        <div>
          Seen on{' '}
          {/* Unstyled links: every client shows them blue and underlined, and ten sources' styles would weigh a kilobyte a card. */}
          {item.seenOn.map((seen, i) => (
            <Fragment key={i}>
              {i > 0 ? ', ' : ''}
              {seen.url ? <a href={seen.url}>{seen.label}</a> : seen.label}
            </Fragment>
          ))}
        </div>
      ) : null}
      {item.history ? <div style={{ color: '#92400e' }}>{item.history}</div> : null}
      {item.excerpt ? <div style={{ fontSize: 14, color: '#374151', margin: '6px 0' }}>{item.excerpt}</div> : null}
      <div>{`Why: ${reasonsLine(item.reasons)}`}</div>
      {item.fit != null ? (
        <div style={{ color: '#374151' }}>{`AI fit ${item.fit}/100${item.fitReason ? `: ${item.fitReason}` : ''}`}</div>
      ) : null}
      {item.url || item.notAFitUrl ? (
        <div style={{ marginTop: 8, fontSize: 15 }}>
          {item.url ? (
            <a href={item.url} style={{ ...primaryButton, marginRight: 12 }}>
              View posting
            </a>
          ) : null}
          {item.notAFitUrl ? (
            <a href={item.notAFitUrl} style={secondaryButton}>
              Not a fit
            </a>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
