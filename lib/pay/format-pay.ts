import type { Budget, PayKind } from './pay';

// Building an Intl formatter costs far more than using one; thousands of emails per run share these.
const moneyFormats = new Map<string, Intl.NumberFormat>();

/** "$1,500", "€45.00"; a bare "150,000" when the currency is not known (it is never guessed). */
export function formatMoney(amount: number, currency: string | null, fractionDigits = 0): string {
  const key = `${currency ?? '-'}/${fractionDigits}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = currency
      ? new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: fractionDigits })
      : new Intl.NumberFormat('en-US', { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits });
    moneyFormats.set(key, format);
  }
  return format.format(amount);
}

const PER: Record<PayKind, string> = { fixed: ' fixed', hourly: '/hour', daily: '/day', monthly: '/month', yearly: '/year' };

// Rates per hour keep their cents; larger sums read better whole.
const digitsOf = (kind: PayKind) => (kind === 'hourly' ? 2 : 0);

/** The money of a budget without its kind ("$300", "$30.00–$60.00"). */
export function formatPayAmount(budget: Budget): string {
  const digits = digitsOf(budget.kind);
  return budget.maxAmount && budget.maxAmount > budget.amount
    ? `${formatMoney(budget.amount, budget.currency, digits)}–${formatMoney(budget.maxAmount, budget.currency, digits)}`
    : formatMoney(budget.amount, budget.currency, digits);
}

/** "$4,000 fixed", "$30.00–$60.00/hour", "150,000–250,000/year (currency not stated)": pay as a card shows it. */
export function formatBudget(budget: Budget | null): string | null {
  if (!budget) return null;
  const text = `${formatPayAmount(budget)}${PER[budget.kind]}`;
  return budget.currency ? text : `${text} (currency not stated)`;
}
