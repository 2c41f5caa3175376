import { primaryButton } from './email-styles';

/** The one call to action of an account email: a large link styled as a button (email clients run no forms or scripts). */
export function ActionButton({ href, children }: { href: string; children: string }) {
  return (
    <p style={{ margin: '22px 0', fontSize: 15 }}>
      <a href={href} style={primaryButton}>
        {children}
      </a>
    </p>
  );
}
