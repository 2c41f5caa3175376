import { describe, expect, it } from 'vitest';
import { markedParts } from '../../lib/preview/marked-words';

/** The preview marks what matched, by the matcher's own rule: whole words, any case, phrases across white space. */
const marked = (text: string, words: string[]) =>
  markedParts(text, words)
    .map((part) => (part.marked ? `[${part.text}]` : part.text))
    .join('');

describe('markedParts', () => {
  it('marks every occurrence, in any case, as whole words only', () => {
    expect(marked('React and react-dom, not Reactor', ['react'])).toBe('[React] and [react]-dom, not Reactor');
    expect(marked('Java, JavaScript', ['java'])).toBe('[Java], JavaScript');
  });

  it('keeps the words keywords are made of: c++, node.js, .net', () => {
    expect(marked('C++ and Node.js on .NET', ['c++', 'node.js', '.net'])).toBe('[C++] and [Node.js] on [.NET]');
  });

  it('marks a phrase across any white space, the longer word first where two overlap', () => {
    expect(marked('React  Native and React', ['react', 'react native'])).toBe('[React  Native] and [React]');
  });

  it('marks letters with their marks: a word inside another script’s word is not marked', () => {
    expect(marked('हिन्दी हिन', ['हिन'])).toBe('हिन्दी [हिन]');
  });

  it('gives the text back whole, unmarked, without words', () => {
    expect(markedParts('<b>React</b>', [])).toEqual([{ text: '<b>React</b>', marked: false }]);
    expect(marked('<b>React</b>', ['react'])).toBe('<b>[React]</b>');
  });
});
