import { Button, Section } from '@react-email/components';

/** The one call to action of an account email: a large link styled as a button (email clients run no forms or scripts). */
export function ActionButton({ href, children }: { href: string; children: string }) {
  return (
    <Section style={{ margin: '22px 0' }}>
      <Button
        href={href}
        style={{ backgroundColor: '#1d4ed8', color: '#ffffff', fontSize: 15, fontWeight: 600, padding: '12px 22px', borderRadius: 8 }}
      >
        {children}
      </Button>
    </Section>
  );
}
