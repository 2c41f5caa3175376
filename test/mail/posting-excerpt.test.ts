import { describe, expect, it } from 'vitest';
import { EXCERPT_CHARS, postingExcerpt } from '../../lib/mail/posting-excerpt';

const story = (words: number) => Array.from({ length: words }, (_, i) => `story${i}`).join(' ');

describe('the excerpt a card shows of a posting', () => {
  it('is the whole text when it is short', () => {
    expect(postingExcerpt({ title: 'Dev', description: 'Short text.' }, ['rust'])).toBe('Short text.');
  });

  it('is the start of a long text, as cards always showed it, when no keyword is given or none is named', () => {
    const description = `${story(200)} the end`;
    const head = `${description.slice(0, EXCERPT_CHARS).trimEnd()}…`;
    expect(postingExcerpt({ title: 'Dev', description })).toBe(head);
    expect(postingExcerpt({ title: 'Dev', description }, ['haskell'])).toBe(head);
  });

  it('is the start when a keyword is named there or in the title, even if named again deeper', () => {
    const description = `We use Rust daily. ${story(400)} More Rust here.`;
    expect(postingExcerpt({ title: 'Dev', description }, ['rust'])).toMatch(/^We use Rust daily\./);
    const deep = `${story(400)} Requirements: Rust.`;
    expect(postingExcerpt({ title: 'Rust developer', description: deep }, ['rust']).startsWith('story0 ')).toBe(true);
  });

  it('shows "… the passage …" around a keyword named only deep in the text, at most the excerpt length', () => {
    const description = `${story(400)} Requirements: five years of Terraform and AWS. ${story(300)}`;
    const excerpt = postingExcerpt({ title: 'Platform engineer', description }, ['kubernetes', 'terraform']);
    expect(excerpt).toMatch(/^… story\d+ /);
    expect(excerpt).toMatch(/ …$/);
    expect(excerpt).toContain('Requirements: five years of Terraform and AWS.');
    expect(excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS);
    // Whole words only: it starts and ends at spaces of the text.
    expect(description).toContain(excerpt.slice(2, -2));
  });

  it('ends without an ellipsis when the passage reaches the end of the text', () => {
    const description = `${story(400)} Must know Elixir.`;
    const excerpt = postingExcerpt({ title: 'Dev', description }, ['elixir']);
    expect(excerpt.startsWith('… ')).toBe(true);
    expect(excerpt.endsWith('Must know Elixir.')).toBe(true);
  });

  it('finds a keyword by the rule matching uses: not inside another word', () => {
    const description = `${story(400)} javascript everywhere, java nowhere`;
    expect(postingExcerpt({ title: 'Dev', description }, ['java'])).toContain('java nowhere');
  });

  it('takes a longer length for the private feed', () => {
    const description = `${story(400)} Go and Postgres. ${story(100)}`;
    expect(postingExcerpt({ title: 'Dev', description }, ['postgres'], 500).length).toBeLessThanOrEqual(500);
  });
});
