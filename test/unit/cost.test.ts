import assert from 'node:assert/strict';
import { currencyCode, formatCost, numericValue, parseCost, plainNumber, type ParsedCost } from '../../src/domain/events/cost.js';

/** The formatted `cost` of an input, as a record shows it after a write. */
function costOf(input: unknown): string {
  const parsed = parseCost(input);
  return formatCost(parsed.raw, parsed.values, parsed.symbol, parsed.position);
}

/** The parsed form without the raw strings, for compact expectations. */
function detailsOf(input: unknown): Omit<ParsedCost, 'raw'> {
  const { raw: _raw, ...rest } = parseCost(input);
  return rest;
}

describe('event cost (docs/plugin-behaviour.md §5.8)', () => {
  describe('numericValue', () => {
    it('reads plain integers and decimals', () => {
      assert.equal(numericValue('15'), 15);
      assert.equal(numericValue('012'), 12);
      assert.equal(numericValue('12.50'), 12.5);
      assert.equal(numericValue('1,23'), 1.23);
    });

    it('takes a single separator followed by exactly three digits as a thousands separator', () => {
      assert.equal(numericValue('1,000'), 1000);
      assert.equal(numericValue('1.000'), 1000);
      assert.equal(numericValue('1,2345'), 1.2345);
    });

    it('takes the last of two different separators as the decimal one', () => {
      assert.equal(numericValue('1,234.56'), 1234.56);
      assert.equal(numericValue('1.234,56'), 1234.56);
      assert.equal(numericValue('1,000,000'), 1000000);
      assert.equal(numericValue('1.000.000'), 1000000);
      assert.equal(numericValue('1,00,000'), 100000, 'a repeated separator groups digits, whatever their count');
    });
  });

  describe('parseCost', () => {
    it('treats absent, empty and blank inputs as no cost', () => {
      const none = { raw: [], values: [], min: null, max: null, symbol: '', position: '' };
      for (const input of [undefined, null, '', '   ', [], ['', ' ']]) assert.deepEqual(parseCost(input), none, JSON.stringify(input));
    });

    it('reads a bare number, given as a string or as a JSON number', () => {
      const fifteen = { raw: ['15'], values: ['15'], min: 15, max: 15, symbol: '', position: '' };
      assert.deepEqual(parseCost('15'), fifteen);
      assert.deepEqual(parseCost(15), fifteen);
      assert.deepEqual(parseCost(' 15 '), fifteen, 'inputs are trimmed');
      assert.deepEqual(detailsOf(12.5), { values: ['12.5'], min: 12.5, max: 12.5, symbol: '', position: '' });
    });

    it('infers the currency symbol and its position from the text around the number', () => {
      assert.deepEqual(detailsOf('$15'), { values: ['15'], min: 15, max: 15, symbol: '$', position: 'prefix' });
      assert.deepEqual(detailsOf('20$'), { values: ['20'], min: 20, max: 20, symbol: '$', position: 'postfix' });
      assert.deepEqual(detailsOf('€ 10'), { values: ['10'], min: 10, max: 10, symbol: '€', position: 'prefix' });
      assert.deepEqual(detailsOf('10 €'), { values: ['10'], min: 10, max: 10, symbol: '€', position: 'postfix' });
      assert.deepEqual(detailsOf('USD 25'), { values: ['25'], min: 25, max: 25, symbol: 'USD', position: 'prefix' });
    });

    it('takes text on both sides of a number, or around a dash, as two words: no symbol', () => {
      assert.deepEqual(detailsOf('pay10now'), { values: ['10'], min: 10, max: 10, symbol: '', position: '' });
      assert.deepEqual(detailsOf('5 US-$'), { values: ['5'], min: 5, max: 5, symbol: '', position: '' });
    });

    it('reads the position from the first piece with a number, after a label', () => {
      assert.deepEqual(detailsOf('free, $20'), { values: ['20', 'free'], min: 20, max: 20, symbol: '$', position: 'prefix' });
    });

    it('ignores a leftover too long to be a currency symbol', () => {
      assert.deepEqual(detailsOf('ABCDEFGHI 5'), { values: ['5'], min: 5, max: 5, symbol: '', position: '' });
      assert.deepEqual(detailsOf('ABCDEFGH 5'), { values: ['5'], min: 5, max: 5, symbol: 'ABCDEFGH', position: 'prefix' });
    });

    it('reads ranges written with a hyphen or a dash', () => {
      assert.deepEqual(detailsOf('10-20'), { values: ['10', '20'], min: 10, max: 20, symbol: '', position: '' });
      assert.deepEqual(detailsOf('$10 – 20'), { values: ['10', '20'], min: 10, max: 20, symbol: '$', position: 'prefix' });
      assert.deepEqual(detailsOf('0 - 30$'), { values: ['0', '30'], min: 0, max: 30, symbol: '$', position: 'postfix' });
    });

    it('reads one symbol from a range that repeats it on both ends', () => {
      assert.deepEqual(detailsOf('$10 - $20'), { values: ['10', '20'], min: 10, max: 20, symbol: '$', position: 'prefix' });
      assert.deepEqual(detailsOf('10 € – 20 €'), { values: ['10', '20'], min: 10, max: 20, symbol: '€', position: 'postfix' });
      assert.deepEqual(detailsOf('$10 - €20'), { values: ['10', '20'], min: 10, max: 20, symbol: '', position: '' }, 'two symbols: none');
    });

    it('keeps a number with a thousands dot and a decimal comma whole', () => {
      assert.deepEqual(detailsOf('1.234,56'), { values: ['1.234,56'], min: 1234.56, max: 1234.56, symbol: '', position: '' });
      assert.deepEqual(detailsOf('1.234.567,89 €'), { values: ['1.234.567,89'], min: 1234567.89, max: 1234567.89, symbol: '€', position: 'postfix' });
      assert.deepEqual(detailsOf('10.50,20.50'), { values: ['10.50', '20.50'], min: 10.5, max: 20.5, symbol: '', position: '' }, 'a list of decimals');
    });

    it('splits comma-separated lists, but not thousands separators', () => {
      assert.deepEqual(detailsOf('5, 10, 15'), { values: ['5', '10', '15'], min: 5, max: 15, symbol: '', position: '' });
      assert.deepEqual(detailsOf('10,20'), { values: ['10', '20'], min: 10, max: 20, symbol: '', position: '' });
      assert.deepEqual(detailsOf('1,000'), { values: ['1,000'], min: 1000, max: 1000, symbol: '', position: '' });
      assert.deepEqual(detailsOf('1,234.56'), { values: ['1,234.56'], min: 1234.56, max: 1234.56, symbol: '', position: '' });
      assert.deepEqual(detailsOf('1,000,000'), { values: ['1,000,000'], min: 1000000, max: 1000000, symbol: '', position: '' });
    });

    it('sorts values numerically, keeps them as written and drops numeric duplicates', () => {
      assert.deepEqual(detailsOf(['30$', '0$', '20$']), { values: ['0', '20', '30'], min: 0, max: 30, symbol: '$', position: 'postfix' });
      assert.deepEqual(detailsOf(['100', '9', '1,000']), { values: ['9', '100', '1,000'], min: 9, max: 1000, symbol: '', position: '' });
      assert.deepEqual(detailsOf('12.50, 12.5, 7'), { values: ['7', '12.50'], min: 7, max: 12.5, symbol: '', position: '' });
    });

    it('keeps the raw inputs, one string per list item', () => {
      assert.deepEqual(parseCost(['0$', ' 20$ ', '', 30]).raw, ['0$', '20$', '30']);
      assert.deepEqual(parseCost('Free, 20$').raw, ['Free, 20$']);
    });

    it('turns text without numbers into label slugs after the numbers', () => {
      assert.deepEqual(detailsOf('Donation'), { values: ['donation'], min: null, max: null, symbol: '', position: '' });
      assert.deepEqual(detailsOf('Free'), { values: ['free'], min: null, max: null, symbol: '', position: '' });
      assert.deepEqual(detailsOf(['Donation', '10']), { values: ['10', 'donation'], min: 10, max: 10, symbol: '', position: '' });
      assert.deepEqual(detailsOf('Pay what you want!'), { values: ['pay-what-you-want'], min: null, max: null, symbol: '', position: '' });
      assert.deepEqual(detailsOf('Entrée libre'), { values: ['entree-libre'], min: null, max: null, symbol: '', position: '' });
      assert.deepEqual(detailsOf('!!!'), { values: [], min: null, max: null, symbol: '', position: '' }, 'punctuation is no label');
      // Slugs as every slug (text/slugs.ts): another script kept whole, percent-encoded.
      assert.deepEqual(detailsOf('無料'), { values: ['%e7%84%a1%e6%96%99'], min: null, max: null, symbol: '', position: '' });
    });

    it("keeps the symbol when labels sit beside numbers that agree on it (the plugin's own examples)", () => {
      assert.deepEqual(detailsOf('free, 20$, 30$'), { values: ['20', '30', 'free'], min: 20, max: 30, symbol: '$', position: 'postfix' });
      assert.deepEqual(detailsOf(['free', '20¥']), { values: ['20', 'free'], min: 20, max: 20, symbol: '¥', position: 'postfix' });
    });

    it('drops the symbol when the pieces disagree', () => {
      assert.deepEqual(detailsOf(['20¥', '30$']), { values: ['20', '30'], min: 20, max: 30, symbol: '', position: '' });
      assert.deepEqual(detailsOf(['free', '20¥', '30$']), { values: ['20', '30', 'free'], min: 20, max: 30, symbol: '', position: '' });
      assert.deepEqual(detailsOf(['5', '$10']), { values: ['5', '10'], min: 5, max: 10, symbol: '', position: '' });
    });
  });

  describe('formatCost', () => {
    it('is empty without a cost', () => {
      assert.equal(costOf(undefined), '');
      assert.equal(costOf(''), '');
      assert.equal(formatCost([], [], '', ''), '');
    });

    it('shows one value with the stored symbol at its position, or $ in front', () => {
      assert.equal(costOf('15'), '$15');
      assert.equal(costOf(15), '$15');
      assert.equal(costOf('$15'), '$15');
      assert.equal(costOf('20$'), '20$');
      assert.equal(costOf('10 €'), '10€');
      assert.equal(costOf('€ 10'), '€10');
      assert.equal(costOf('1,000'), '$1,000', 'the number as written');
      assert.equal(costOf('12.50'), '$12.50');
    });

    it('shows a zero as Free', () => {
      assert.equal(costOf(['0']), 'Free');
      assert.equal(costOf('0.0'), 'Free');
      assert.equal(costOf(' 0 '), 'Free');
      assert.equal(costOf('0.00 €'), 'Free');
    });

    it('reads a lone "0" or 0 as no cost, as PHP\'s empty() does in the plugin (docs/contract.md §6)', () => {
      assert.equal(costOf('0'), '');
      assert.equal(costOf(0), '');
      assert.deepEqual(parseCost('0').values, []);
      assert.deepEqual(parseCost(['0']).values, ['0']);
    });

    it('shows the minimum and the maximum joined by an en dash', () => {
      assert.equal(costOf(['0$', '20$', '30$']), 'Free – 30$');
      assert.equal(costOf('10-20'), '$10 – $20');
      assert.equal(costOf('5, 10, 15'), '$5 – $15');
      assert.equal(costOf('$10 – 20'), '$10 – $20');
      assert.equal(costOf('$10 - $20'), '$10 – $20');
      assert.equal(costOf('10 € – 20 €'), '10€ – 20€');
      assert.equal(costOf('1.234,56 €'), '1.234,56€');
      assert.equal(costOf(['20¥', '30$']), '$20 – $30', 'no consistent symbol: the default one');
    });

    it('shows one value when the minimum equals the maximum', () => {
      assert.equal(costOf(['12.50', '12.5']), '$12.50');
      assert.equal(formatCost(['5', '5.0'], ['5', '5.0'], '', ''), '$5');
    });

    it('ignores labels when there are numbers, and shows labels as written when there are none', () => {
      assert.equal(costOf(['Donation', '10']), '$10');
      assert.equal(costOf('Free'), 'Free');
      assert.equal(costOf('Donation'), 'Donation');
      assert.equal(costOf(['Donation', 'Pay what you want']), 'Donation, Pay what you want');
    });

    it('uses the stored symbol and position it is given', () => {
      assert.equal(formatCost(['10 - 20'], ['10', '20'], '£', 'prefix'), '£10 – £20');
      assert.equal(formatCost(['10 - 20'], ['10', '20'], 'kr', 'postfix'), '10kr – 20kr');
      assert.equal(formatCost(['10'], ['10'], '', 'postfix'), '10$', 'a position without a symbol still applies');
    });
  });

  describe('plainNumber (schema.org prices, docs/contract.md §12)', () => {
    it('writes digits and a . decimal point, whatever the separators were', () => {
      assert.equal(plainNumber('15'), '15');
      assert.equal(plainNumber('1,000'), '1000');
      assert.equal(plainNumber('1.000'), '1000');
      assert.equal(plainNumber('12,50'), '12.50');
      assert.equal(plainNumber('1.234,56'), '1234.56');
      assert.equal(plainNumber('1,234.56'), '1234.56');
      assert.equal(plainNumber('1,000,000'), '1000000');
      // Exact where a number would not be: no exponent, no rounding.
      assert.equal(plainNumber('123456789012345678901234'), '123456789012345678901234');
    });
  });

  describe('currencyCode (schema.org priceCurrency, docs/contract.md §12)', () => {
    it('takes the stored code first, in capitals', () => {
      assert.equal(currencyCode('EUR', '$'), 'EUR');
      assert.equal(currencyCode('gbp', ''), 'GBP');
    });
    it('reads a symbol that is a code or names one currency', () => {
      assert.equal(currencyCode('', 'CHF'), 'CHF');
      assert.equal(currencyCode('', 'chf'), 'CHF');
      assert.equal(currencyCode('', '€'), 'EUR');
      assert.equal(currencyCode('', '£'), 'GBP');
      assert.equal(currencyCode('', '$'), 'USD');
      assert.equal(currencyCode('', 'R$'), 'BRL');
      const symbols: Record<string, string> = {
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
      for (const [symbol, code] of Object.entries(symbols)) assert.equal(currencyCode('', symbol), code, symbol);
    });
    it('gives USD without a symbol (the plugin default) and nothing for a symbol of no single currency', () => {
      assert.equal(currencyCode('', ''), 'USD');
      assert.equal(currencyCode('', 'kr'), undefined);
      assert.equal(currencyCode('', 'XYZW'), undefined);
      assert.equal(currencyCode('', 'ABC'), undefined);
      assert.equal(currencyCode('nope', '€'), 'EUR');
    });
  });
});
