/**
 * The query text as tokens (docs/query.md "Grammar"). White space, parentheses, quotes and `|`
 * separate; everything else runs together into a word, which is then read: a whole word `OR`,
 * `AND` or `NOT` (capitals only) is an operator; a leading `-` is a NOT (only there, so
 * "e-commerce" stays one word); `name:` is a field. What a word may hold is checked by the parser,
 * with the keyword rule, so that it can say which clause is wrong.
 */

export type Token =
  | { type: '(' | ')' | 'or' | 'and' | 'not' | 'minus' | 'end'; at: number; end: number }
  | { type: 'word'; text: string; at: number; end: number }
  | { type: 'phrase'; text: string; at: number; end: number }
  /** `name:`, with the name lowercased; what follows the colon is the next token. */
  | { type: 'field'; name: string; at: number; end: number };

/** A failure the parser reports as it is: where, and what was expected. */
export class QueryFailure extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

const SEPARATOR = /[\s()"“”|]/u;
const CLOSING_QUOTE: Record<string, string> = { '"': '"', '“': '”' };
// A field name is letters only: "10:30" or ":x" are not fields (the keyword rule then refuses the colon).
const FIELD = /^(\p{L}+):/u;

function readPhrase(text: string, at: number): { token: Token; next: number } {
  const open = text[at];
  let close = text.indexOf(CLOSING_QUOTE[open], at + 1);
  // A phrase opened with a curly quote may be closed with a straight one, as phones and editors mix them.
  if (open === '“' && text.indexOf('"', at + 1) !== -1 && (close === -1 || text.indexOf('"', at + 1) < close))
    close = text.indexOf('"', at + 1);
  if (close === -1) throw new QueryFailure(at, `\`${open}\` at ${at} is never closed`);
  return { token: { type: 'phrase', text: text.slice(at + 1, close), at, end: close + 1 }, next: close + 1 };
}

/** One run of word characters → its tokens: NOTs written `-`, a field, the word itself. */
function readWord(word: string, at: number, tokens: Token[]): void {
  const end = at + word.length;
  if (word === 'OR' || word === 'AND' || word === 'NOT') {
    tokens.push({ type: word === 'OR' ? 'or' : word === 'AND' ? 'and' : 'not', at, end });
    return;
  }
  let offset = 0;
  while (word[offset] === '-') {
    tokens.push({ type: 'minus', at: at + offset, end: at + offset + 1 });
    offset++;
  }
  const rest = word.slice(offset);
  const field = FIELD.exec(rest);
  if (field) {
    const fieldEnd = at + offset + field[0].length;
    tokens.push({ type: 'field', name: field[1].toLowerCase(), at: at + offset, end: fieldEnd });
    if (fieldEnd < end) tokens.push({ type: 'word', text: rest.slice(field[0].length), at: fieldEnd, end });
  } else if (rest !== '') tokens.push({ type: 'word', text: rest, at: at + offset, end });
}

/** The text's tokens, ending with `end`; throws QueryFailure for a quote never closed. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const character = text[at];
    if (/\s/u.test(character)) at++;
    else if (character === '(' || character === ')') tokens.push({ type: character, at, end: ++at });
    else if (character === '|') tokens.push({ type: 'or', at, end: ++at });
    else if (character === '"' || character === '“') {
      const { token, next } = readPhrase(text, at);
      tokens.push(token);
      at = next;
    } else if (character === '”') throw new QueryFailure(at, `\`”\` at ${at} has no \`“\``);
    else {
      let end = at + 1;
      while (end < text.length && !SEPARATOR.test(text[end])) end++;
      readWord(text.slice(at, end), at, tokens);
      at = end;
    }
  }
  tokens.push({ type: 'end', at: text.length, end: text.length });
  return tokens;
}

/** How a token is named in an error: `(` with its marks, operators as written. */
export function nameOf(token: Token): string {
  switch (token.type) {
    case 'or':
    case 'and':
    case 'not':
      return token.type.toUpperCase();
    case 'minus':
      return '`-`';
    case 'field':
      return `\`${token.name}:\``;
    case 'end':
      return 'the end';
    case 'word':
    case 'phrase':
      return `\`${token.text}\``;
    default:
      return `\`${token.type}\``;
  }
}
