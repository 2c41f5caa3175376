import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildClient, CLIENT_BUNDLE, CLIENT_ENTRY } from '../../scripts/build-client';
import { PREVIEW_DEBOUNCE_MS, PREVIEW_FIELDS } from '../../lib/preview/preview';
import { RESEND_AFTER_SEC } from '../../lib/subscriptions/resend-wait';
import { FORM_SCRIPT } from '../../lib/http/form-script';

const root = fileURLToPath(new URL('../../', import.meta.url));
const source = () => readFile(`${root}${CLIENT_ENTRY}`, 'utf8');

/**
 * The pages' one script is built from lib/client, never written by hand: it imports what it shares
 * with the server, so a constant changed on the server changes in the browser with it.
 */
describe('the form script (lib/client, bundled into public/scout-forms.js)', () => {
  it('imports the preview fields, the debounce, the default zone, the typo check and the resend wait instead of copying them', async () => {
    const text = await source();
    expect(text).toMatch(/import \{ PREVIEW_DEBOUNCE_MS, PREVIEW_FIELDS \} from '\.\.\/preview\/preview';/);
    expect(text).toMatch(/import \{ DEFAULT_TIMEZONE \} from '\.\.\/subscribers\/default-time-zone';/);
    expect(text).toMatch(/import \{ emailTypoSuggestion \} from '\.\.\/subscribers\/email-typo';/);
    expect(text).toMatch(/import \{ RESEND_AFTER_SEC, resendHint \} from '\.\.\/subscriptions\/resend-wait';/);
    // No copy: not the list of fields, not the numbers, not the default zone.
    expect(text).not.toContain(PREVIEW_FIELDS.map((field) => `'${field}'`).join(', '));
    expect(text).not.toContain(`'${PREVIEW_FIELDS[1]}'`);
    expect(text).not.toMatch(new RegExp(`\\b(${PREVIEW_DEBOUNCE_MS}|${RESEND_AFTER_SEC})\\b`));
    expect(text).not.toContain("'UTC'");
  });

  it('is served from the file the pages load, a build output that git does not keep', async () => {
    expect(CLIENT_BUNDLE).toBe(`public${FORM_SCRIPT}`);
    const { stdout } = await promisify(execFile)('git', ['ls-files', 'public'], { cwd: root });
    expect(stdout.split('\n').filter((path) => path.endsWith('.js'))).toEqual([]);
    const { stdout: ignored } = await promisify(execFile)('git', ['check-ignore', CLIENT_BUNDLE], { cwd: root });
    expect(ignored.trim()).toBe(CLIENT_BUNDLE);
  });

  it('bundles the same bytes every time, small, with the shared values in it and nothing of the server', async () => {
    const [first, second] = [await buildClient({ write: false }), await buildClient({ write: false })];
    expect(first).toBe(second);
    const bundle = first ?? '';
    expect(bundle.length).toBeGreaterThan(1_000);
    expect(bundle.length).toBeLessThan(40_000);
    expect(bundle).toContain(String(PREVIEW_DEBOUNCE_MS));
    for (const field of PREVIEW_FIELDS) expect(bundle).toContain(`"${field}"`);
    for (const server of ['firebase', 'node:', 'react', 'luxon', 'zod', root]) expect(bundle).not.toContain(server);
  });
});
