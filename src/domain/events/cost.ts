import { sanitizeSlug } from '../../text/slugs.js';
import { numericValue } from '../../text/cost-text.js';

/**
 * Event cost (docs/plugin-behaviour.md §5.8): parsed once on write, formatted on read. The formatting
 * and the written numbers are a leaf (text/cost-text.ts): a write stores the plain form of the
 * formatted cost (text/plain-forms.ts), and the migration that filled it needed the same rule.
 */
export { formatCost, numericValue, plainNumber } from '../../text/cost-text.js';

export interface ParsedCost {
  /** The raw inputs, one string each. */
  raw: string[];
  /** `cost_details.values`: every number found, as written, sorted numerically; then label slugs. */
  values: string[];
  min: number | null;
  max: number | null;
  /** Inferred from the text around the numbers; `''` when absent or inconsistent. */
  symbol: string;
  position: '' | 'prefix' | 'postfix';
}

const NUMBER = /\d+(?:[.,]\d+)*/g;

/**
 * A comma that separates list items: not one followed by exactly three digits (`1,000`), nor the
 * decimal comma of a number that already has a thousands dot (`1.234,56`).
 */
const LIST_COMMA = /(?<!\d\.\d{3}),(?!\d{3}(?!\d))/;

/**
 * The text of a piece around its numbers, dashes aside: the currency symbol when it is one word
 * written once or repeated on every number (`$10 - $20` → `$`). Different words are kept with their
 * spaces, which no symbol has, so the piece yields none (`$10 - €20`).
 */
function leftoverOf(piece: string): { leftover: string; prefix: boolean } {
  const words = piece.replace(NUMBER, ' ').replace(/[-–—]/g, ' ').trim().split(/\s+/);
  // Different words are joined only to fail the symbol check below (a space), whatever joins them.
  // Stryker disable next-line StringLiteral: any joint fails the symbol check (see above).
  const leftover = words.every((word) => word === words[0]) ? words[0] : words.join(' ');
  return { leftover, prefix: piece.trim().startsWith(leftover) };
}

/**
 * Parses `cost` as sent: a string, a number, or a list of them. Empty means no cost, and so does a
 * lone `"0"` or `0`, which PHP's `empty()` counts as empty: the plugin stores no cost for it
 * (docs/contract.md §6). `"0.00"`, `" 0 "` and `["0"]` are a cost, shown as `Free`.
 */
export function parseCost(input: unknown): ParsedCost {
  const list = Array.isArray(input) ? input : input === undefined || input === null || input === '0' || input === 0 ? [] : [input];
  const raw = list.map((item) => String(item).trim()).filter((item) => item !== '');
  // Stryker disable next-line ArrayDeclaration: a string that is not a number would be dropped as a duplicate (NaN equals nothing).
  const numbers: string[] = [];
  const labels: string[] = [];
  const leftovers: Array<{ leftover: string; prefix: boolean }> = [];
  for (const piece of raw.flatMap((item) => item.split(LIST_COMMA))) {
    const found = piece.match(NUMBER);
    if (!found) {
      // A label is a slug of itself, made as every slug (text/slugs.ts: WordPress's sanitize_title).
      const label = sanitizeSlug(piece);
      if (label) labels.push(label);
      continue;
    }
    numbers.push(...found);
    leftovers.push(leftoverOf(piece));
  }
  numbers.sort((a, b) => numericValue(a) - numericValue(b));
  const uniqueNumbers = numbers.filter((n, i) => numbers.findIndex((m) => numericValue(m) === numericValue(n)) === i);
  const symbols = new Set(leftovers.map((l) => l.leftover));
  const [only] = symbols;
  const symbol = symbols.size === 1 && only.length <= 8 && !/\s/.test(only) ? only : '';
  return {
    raw,
    values: [...uniqueNumbers, ...labels],
    min: uniqueNumbers.length ? numericValue(uniqueNumbers[0]) : null,
    max: uniqueNumbers.length ? numericValue(uniqueNumbers[uniqueNumbers.length - 1]) : null,
    symbol,
    position: symbol === '' ? '' : leftovers[0].prefix ? 'prefix' : 'postfix',
  };
}

/** Currency symbols that name one currency (`kr` or `¢` name several, or none, and are not here). */
const CURRENCY_OF_SYMBOL: Record<string, string> = {
  $: 'USD',
  US$: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  '₫': 'VND',
  '₱': 'PHP',
  '฿': 'THB',
  '₴': 'UAH',
  '₦': 'NGN',
  zł: 'PLN',
  Kč: 'CZK',
  Ft: 'HUF',
  R$: 'BRL',
  A$: 'AUD',
  AU$: 'AUD',
  C$: 'CAD',
  CA$: 'CAD',
  NZ$: 'NZD',
  HK$: 'HKD',
  S$: 'SGD',
  Fr: 'CHF',
};

const ISO_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/**
 * The ISO 4217 code of an event's cost, for schema.org's `priceCurrency` (docs/contract.md §12): the
 * stored code; else the stored symbol when it is a code itself (`EUR`, `chf`) or names one currency
 * (`€`); else, with no symbol at all, `USD`, the plugin's default (the formatted cost shows `$` then);
 * a symbol that names no single currency (`kr`) gives `undefined` rather than a wrong code.
 */
export function currencyCode(code: string, symbol: string): string | undefined {
  if (ISO_CURRENCIES.has(code.toUpperCase())) return code.toUpperCase();
  if (symbol === '') return 'USD';
  // Stryker disable next-line Regex: every ISO code has three letters, and upper-casing never shortens a symbol.
  if (/^[A-Za-z]{3}$/.test(symbol) && ISO_CURRENCIES.has(symbol.toUpperCase())) return symbol.toUpperCase();
  return CURRENCY_OF_SYMBOL[symbol];
}
