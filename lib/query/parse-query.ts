import { isCurrencyCode, MAX_MINIMUM_PAY, readMoneyText } from '../pay/minimum-pay';
import { keywordTermProblem, normaliseKeyword } from './keyword-term';
import { nameOf, QueryFailure, tokenize, type Token } from './query-tokens';
import { PAY_WORDS, QUERY_FIELDS, QUERY_LIMITS, type ParsedQuery, type QueryField, type QueryNode } from './query-tree';

/**
 * A subscriber's query text → its tree, or the first thing wrong with it (docs/query.md). A
 * recursive descent over tokens, with Google's precedence: NOT binds tightest, then OR, then AND
 * (implicit or written), so `a b OR c` is a AND (b OR c).
 *
 *   query   := and
 *   and     := or (["AND"] or)*
 *   or      := unary (("OR" | "|") unary)*
 *   unary   := ("-" | "NOT") unary | primary
 *   primary := "(" and ")" | clause
 */

const FIELD_LIST = 'title, company, location or source';
const REMOTE_VALUES: Record<string, boolean> = { yes: true, no: false, true: true, false: false };
const PAY_CLAUSE = /^(salary|rate|fixed)([<>=!]+)(.*)$/iu;
const CURRENCY = /^[A-Z]{3}$/u;

type Context = { field: { name: QueryField; at: number } | null };

class Parser {
  private index = 0;
  private depth = 0;
  private clauses = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.index];
  }

  private take(): Token {
    return this.tokens[this.index++];
  }

  parseQuery(): QueryNode {
    const tree = this.parseAnd({ field: null });
    const next = this.peek();
    if (next.type === ')') throw new QueryFailure(next.at, `\`)\` at ${next.at} has no \`(\``);
    return tree;
  }

  private startsClause(token: Token): boolean {
    return ['(', 'not', 'minus', 'word', 'phrase', 'field'].includes(token.type);
  }

  /** After an operator: the next token must begin a clause, or the operator is left hanging. */
  private expectClauseAfter(operator: Token): void {
    const next = this.peek();
    if (!this.startsClause(next)) throw new QueryFailure(operator.at, `expected a term after ${nameOf(operator)} at ${operator.at}`);
  }

  private parseAnd(context: Context): QueryNode {
    const parts: QueryNode[] = [];
    for (;;) {
      const next = this.peek();
      if (next.type === 'end' || next.type === ')') break;
      if (next.type === 'and' || next.type === 'or') {
        if (parts.length === 0) throw new QueryFailure(next.at, `expected a term before ${nameOf(next)} at ${next.at}`);
        if (next.type === 'or') throw new QueryFailure(next.at, `expected a term after ${nameOf(next)} at ${next.at}`);
        this.take();
        this.expectClauseAfter(next);
      }
      parts.push(this.parseOr(context));
    }
    // Only a `)` at the top ends an empty run: parentheses' first clause was checked when they opened.
    const next = this.peek();
    if (parts.length === 0) throw new QueryFailure(next.at, `\`)\` at ${next.at} has no \`(\``);
    return joined('and', parts);
  }

  private parseOr(context: Context): QueryNode {
    const parts = [this.parseUnary(context)];
    while (this.peek().type === 'or') {
      const operator = this.take();
      this.expectClauseAfter(operator);
      parts.push(this.parseUnary(context));
    }
    return joined('or', parts);
  }

  private enter(at: number): void {
    if (++this.depth > QUERY_LIMITS.depth)
      throw new QueryFailure(at, `nested too deeply at ${at}: at most ${QUERY_LIMITS.depth} levels of parentheses and NOTs`);
  }

  private parseUnary(context: Context): QueryNode {
    const token = this.peek();
    if (token.type !== 'not' && token.type !== 'minus') return this.parsePrimary(context);
    this.take();
    this.expectClauseAfter(token);
    // `-` is glued to what it leaves out: "a - b" is more likely a dash than an exclusion.
    if (token.type === 'minus' && this.peek().at !== token.end)
      throw new QueryFailure(token.at, `\`-\` at ${token.at} must be followed directly by what to leave out, like -wordpress`);
    this.enter(token.at);
    const part = this.parseUnary(context);
    this.depth--;
    return { kind: 'not', part, at: token.at };
  }

  private parseParenthesised(open: Token, context: Context): QueryNode {
    this.enter(open.at);
    this.expectClauseAfter(open);
    const inner = this.parseAnd(context);
    if (this.peek().type !== ')') throw new QueryFailure(open.at, `\`(\` at ${open.at} is never closed`);
    this.take();
    this.depth--;
    return inner;
  }

  private parsePrimary(context: Context): QueryNode {
    const token = this.take();
    switch (token.type) {
      case '(':
        return this.parseParenthesised(token, context);
      case 'field':
        return this.parseField(token, context);
      case 'phrase':
        return this.term(token.text, true, token.at, context.field?.name ?? null);
      case 'word':
        return this.parseWord(token, context);
      default:
        // Only reached at a token no operator hands on to (the caller checked the others).
        throw new QueryFailure(token.at, `expected a term at ${token.at}, not ${nameOf(token)}`);
    }
  }

  private countClause(at: number): void {
    if (++this.clauses > QUERY_LIMITS.clauses)
      throw new QueryFailure(
        at,
        `too many clauses at ${at}: a query may have at most ${QUERY_LIMITS.clauses} words, phrases, remote and pay clauses`,
      );
  }

  private term(written: string, phrase: boolean, at: number, field: QueryField | null): QueryNode {
    const text = normaliseKeyword(written);
    if (phrase && text === '') throw new QueryFailure(at, `the phrase at ${at} is empty: put words between the quotes`);
    const problem = keywordTermProblem(text, 'term');
    if (problem) throw new QueryFailure(at, `\`${written}\` at ${at}: ${problem}`);
    this.countClause(at);
    return { kind: 'term', field, text, phrase, at };
  }

  /** A clause only outside a field's parentheses: `title:(react remote:yes)` would say two things at once. */
  private outsideField(context: Context, token: Token, what: string): void {
    if (context.field)
      throw new QueryFailure(
        token.at,
        `${what} at ${token.at} cannot be inside ${context.field.name}:( ) at ${context.field.at}: only words and phrases can`,
      );
  }

  private parseField(token: Extract<Token, { type: 'field' }>, context: Context): QueryNode {
    const value = this.peek();
    const glued = value.at === token.end && (value.type === 'word' || value.type === 'phrase' || value.type === '(');
    if (token.name === 'remote') {
      this.outsideField(context, token, '`remote:`');
      const remote = value.type === 'word' && value.at === token.end ? REMOTE_VALUES[value.text.toLowerCase()] : undefined;
      if (remote === undefined) throw new QueryFailure(token.at, `\`remote:\` at ${token.at} takes yes or no, like remote:yes`);
      this.take();
      this.countClause(token.at);
      return { kind: 'remote', remote, at: token.at };
    }
    if (!(QUERY_FIELDS as readonly string[]).includes(token.name)) {
      const pay = token.name in PAY_WORDS ? ` (pay is written ${token.name}>=100k)` : '';
      throw new QueryFailure(token.at, `unknown field \`${token.name}\` at ${token.at}: use ${FIELD_LIST}${pay}`);
    }
    this.outsideField(context, token, nameOf(token));
    if (!glued) throw new QueryFailure(token.at, `expected a word, a "phrase" or ( right after \`${token.name}:\` at ${token.at}`);
    const field = { name: token.name as QueryField, at: token.at };
    this.take();
    if (value.type === '(') return this.parseParenthesised(value, { field });
    // "title:-intern" reads as either; the NOT goes before the field, where it reads one way only.
    if (value.type === 'word' && value.text.startsWith('-'))
      throw new QueryFailure(
        token.at,
        `\`${token.name}:${value.text}\` at ${token.at}: to leave out, write -${token.name}:${value.text.slice(1)}`,
      );
    return this.term((value as Extract<Token, { type: 'word' | 'phrase' }>).text, value.type === 'phrase', token.at, field.name);
  }

  private parseWord(token: Extract<Token, { type: 'word' }>, context: Context): QueryNode {
    if (/^(?:[<>]=?|=)(?:[$€£]?[\d.]|$)/u.test(token.text))
      throw new QueryFailure(token.at, `\`${token.text}\` at ${token.at}: write pay without spaces, like salary>=100k or rate>=60`);
    const pay = PAY_CLAUSE.exec(token.text);
    if (!pay) return this.term(token.text, false, token.at, context.field?.name ?? null);
    this.outsideField(context, token, `\`${token.text}\``);
    return this.parsePay(token, pay[1].toLowerCase(), pay[2], pay[3]);
  }

  private parsePay(token: Token, word: string, operator: string, amountText: string): QueryNode {
    const at = token.at;
    if (operator !== '>=') throw new QueryFailure(at, `\`${word}${operator}\` at ${at}: only at least is supported, use >=`);
    const money = readMoneyText(amountText);
    if (!money) throw new QueryFailure(at, `expected an amount after \`${word}>=\` at ${at}, like ${word}>=60 or ${word}>=100k EUR`);
    if (money.amount < 0 || money.amount > MAX_MINIMUM_PAY)
      throw new QueryFailure(at, `the amount at ${at} must be between 0 and ${MAX_MINIMUM_PAY.toLocaleString('en-US')}`);
    let currency = money.currency ?? (money.sign === 'dollar' ? 'USD' : null);
    const next = this.peek();
    if (next.type === 'word' && CURRENCY.test(next.text) && isCurrencyCode(next.text)) {
      if (currency !== null)
        throw new QueryFailure(next.at, `\`${next.text}\` at ${next.at}: the amount before it already names its currency`);
      currency = next.text;
      this.take();
    }
    this.countClause(at);
    return { kind: 'pay', pay: PAY_WORDS[word], amount: money.amount, currency, at };
  }
}

/** Parts of one kind as one node: nested nodes of the same kind flattened, a single part as itself. */
function joined(kind: 'and' | 'or', parts: QueryNode[]): QueryNode {
  const flat = parts.flatMap((part) => (part.kind === kind ? part.parts : [part]));
  return flat.length === 1 ? flat[0] : { kind, parts: flat, at: flat[0].at };
}

/** Every top-level part leaves something out: it would match almost every posting. */
const onlyExclusions = (tree: QueryNode) => (tree.kind === 'and' ? tree.parts : [tree]).every((part) => part.kind === 'not');

export function parseQuery(text: string): ParsedQuery {
  if (text.length > QUERY_LIMITS.length)
    return fail(QUERY_LIMITS.length, `the query is ${text.length} characters long: at most ${QUERY_LIMITS.length}`);
  if (text.trim() === '') return fail(0, 'the query is empty: type a word to look for');
  try {
    const tree = new Parser(tokenize(text)).parseQuery();
    if (onlyExclusions(tree)) return fail(0, 'a query cannot be only exclusions: add something to look for');
    return { ok: true, tree };
  } catch (error) {
    if (error instanceof QueryFailure) return fail(error.at, error.message);
    throw error;
  }
}

const fail = (at: number, message: string): ParsedQuery => ({ ok: false, error: { at, message } });
