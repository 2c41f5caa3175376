import { describe, expect, it } from 'vitest';
import { MODEL_TEXT_CHARS, textForModel } from '../../lib/verdicts/model-text';

const filler = (label: string, words: number) => Array.from({ length: words }, (_, i) => `${label}${i}`).join(' ');

describe('the text the model reads of a posting', () => {
  it('is the whole text when it fits', () => {
    const description = filler('w', 100);
    expect(textForModel(description, ['rust'])).toBe(description);
  });

  it('keeps the opening, the requirements and the passage naming a keyword of a long posting, bounded', () => {
    const description = [
      'Acme builds billing software for clinics.',
      filler('story', 800),
      'Requirements: five years of TypeScript, strong SQL, and care for users.',
      filler('benefits', 600),
      'Bonus points for Terraform experience.',
      filler('legal', 600),
    ].join(' ');
    const text = textForModel(description, ['terraform']);
    expect(text.length).toBeLessThanOrEqual(MODEL_TEXT_CHARS);
    expect(text.startsWith('Acme builds billing software for clinics.')).toBe(true);
    expect(text).toContain('Requirements: five years of TypeScript, strong SQL, and care for users.');
    expect(text).toContain('Bonus points for Terraform experience.');
    expect(text).toContain(' … ');
    expect(text).not.toContain('legal500');
  });

  it('finds the common headings in collapsed text', () => {
    for (const heading of ['Qualifications', "What you'll bring", 'What we’re looking for', 'About you', 'Minimum qualifications']) {
      const description = `Intro. ${filler('story', 800)} ${heading}: deep knowledge of Kafka. ${filler('tail', 800)}`;
      expect(textForModel(description, [])).toContain(`${heading}: deep knowledge of Kafka.`);
    }
  });

  it('never splits a word at a passage edge', () => {
    const description = `${filler('alpha', 1_000)} Requirements: Go. ${filler('omega', 1_000)}`;
    for (const passage of textForModel(description, ['go']).split(' … ')) {
      expect(description).toContain(passage.replace(/…$/, ''));
      expect(passage).toMatch(/^\S.*\S$/);
    }
  });
});
