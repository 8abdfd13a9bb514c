/** Field readers: the building blocks every format uses. */
import {
  compact,
  isWellFormed,
  optionalCurrency,
  optionalEnum,
  optionalSlug,
  optionalString,
  optionalTags,
  optionalVersion,
  own,
  requiredAmount,
  requiredDecimal,
  requiredString,
  slugify,
} from '../../../lambda/core/formats/fields';
import { rejectionOf } from './helpers';

describe('string readers', () => {
  it('trim; blank is absent (optional) or missing (required)', () => {
    expect(optionalString('  a b  ', 'f')).toBe('a b');
    expect(optionalString('   ', 'f')).toBeUndefined();
    expect(optionalString(null, 'f')).toBeUndefined();
    expect(rejectionOf(() => requiredString('', 'f'))).toEqual({
      code: 'missing-field',
      field: 'f',
    });
  });

  it('only strings, bounded, well-formed', () => {
    expect(rejectionOf(() => optionalString(12, 'f'))).toEqual({
      code: 'invalid-field',
      field: 'f',
    });
    expect(rejectionOf(() => optionalString('x'.repeat(11), 'f', 10))).toEqual({
      code: 'invalid-field',
      field: 'f',
    });
    expect(rejectionOf(() => optionalString('a\ud800b', 'f'))).toEqual({
      code: 'invalid-field',
      field: 'f',
    });
    expect(rejectionOf(() => optionalString('\udc00', 'f'))).toEqual({
      code: 'invalid-field',
      field: 'f',
    });
    expect(optionalString('emoji 😀 ok', 'f')).toBe('emoji 😀 ok');
  });

  it('isWellFormed agrees with String.prototype.isWellFormed where the runtime has it', () => {
    const samples = ['', 'abc', '😀', '\ud83d', '\ude00', '\ude00\ud83d', 'a\ud83d\ude00b'];
    const native = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;
    for (const sample of samples) {
      if (native) expect(isWellFormed(sample)).toBe(native.call(sample));
    }
    expect(samples.map(isWellFormed)).toEqual([true, true, true, false, false, false, true]);
  });
});

describe('enum, currency, slug', () => {
  it('enums are lower-cased and closed', () => {
    expect(optionalEnum(' Usage ', 'f', ['usage', 'tax'] as const)).toBe('usage');
    expect(rejectionOf(() => optionalEnum('fee', 'f', ['usage'] as const)).code).toBe(
      'invalid-field',
    );
  });

  it('currency: three letters, upper-cased', () => {
    expect(optionalCurrency('eur', 'c')).toBe('EUR');
    for (const bad of ['EURO', 'E1R', '€', 'US D']) {
      expect(rejectionOf(() => optionalCurrency(bad, 'c')).code).toBe('invalid-field');
    }
  });

  it('slugs: lower-case a-z 0-9 -', () => {
    expect(optionalSlug('Acme-EU', 't')).toBe('acme-eu');
    for (const bad of ['acme#1', '-acme', 'acme_eu', 'a'.repeat(65), 'ünïcode']) {
      expect(rejectionOf(() => optionalSlug(bad, 't')).code).toBe('invalid-field');
    }
    expect(slugify('  Oracle Cloud (OCI) ')).toBe('oracle-cloud-oci');
  });
});

describe('version', () => {
  it.each([
    [1, 1],
    ['2', 2],
    [' 42 ', 42],
    [2 ** 53 - 1, 2 ** 53 - 1],
  ])('%j → %j', (value, expected) => {
    expect(optionalVersion(value, 'version')).toBe(expected);
  });

  it.each([
    [0],
    [-1],
    [1.5],
    ['1.0'],
    ['1e3'],
    [NaN],
    [Infinity],
    [2 ** 53],
    ['9007199254740992'],
    [true],
    [[1]],
  ])('%j → invalid-field', (value) => {
    expect(rejectionOf(() => optionalVersion(value, 'version'))).toEqual({
      code: 'invalid-field',
      field: 'version',
    });
  });
});

describe('decimal', () => {
  it('exact normalization through toDecimal', () => {
    expect(requiredDecimal('12.30', 'a')).toBe('12.3');
    expect(requiredDecimal(12.3, 'a')).toBe('12.3');
    expect(requiredDecimal('-0.00', 'a')).toBe('0');
    expect(requiredDecimal('1.5e3', 'a')).toBe('1500');
  });

  it('rejections', () => {
    expect(rejectionOf(() => requiredDecimal(undefined, 'a'))).toEqual({
      code: 'missing-field',
      field: 'a',
    });
    expect(rejectionOf(() => requiredDecimal('1'.repeat(39), 'a')).code).toBe('invalid-field');
    expect(rejectionOf(() => requiredAmount('0.0000000000000000001', 'a')).code).toBe(
      'invalid-field',
    );
    expect(rejectionOf(() => requiredAmount('1e15', 'a')).code).toBe('invalid-field');
  });

  it('a number is what the producer wrote, digit for digit: float noise is booked as sent', () => {
    expect(requiredAmount(0.1 + 0.2, 'a')).toBe('0.30000000000000004');
    expect(requiredAmount('0.123456789012345678', 'a')).toBe('0.123456789012345678');
  });
});

describe('tags', () => {
  it('object or JSON string; numbers and booleans become text; empty is absent', () => {
    expect(optionalTags({ a: 'x', n: 2087, b: false, e: '' }, 'tags')).toStrictEqual({
      a: 'x',
      n: '2087',
      b: 'false',
      e: '',
    });
    expect(optionalTags('{"a":"x"}', 'tags')).toStrictEqual({ a: 'x' });
    expect(optionalTags('{}', 'tags')).toBeUndefined();
    expect(optionalTags('', 'tags')).toBeUndefined();
  });

  it('rejects nested values, empty keys and __proto__', () => {
    expect(rejectionOf(() => optionalTags({ a: null }, 'tags'))).toEqual({
      code: 'invalid-field',
      field: 'tags.a',
    });
    expect(rejectionOf(() => optionalTags({ ' ': 'x' }, 'tags')).code).toBe('invalid-field');
    expect(rejectionOf(() => optionalTags('{"__proto__":"x"}', 'tags'))).toEqual({
      code: 'invalid-field',
      field: 'tags.__proto__',
    });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a "constructor" tag is plain data', () => {
    const tags = optionalTags('{"constructor":"c","toString":"t"}', 'tags');
    expect(tags).toStrictEqual({ constructor: 'c', toString: 't' });
    expect(Object.getPrototypeOf(tags)).toBe(Object.prototype);
  });
});

describe('own and compact', () => {
  it('own never returns inherited members', () => {
    expect(own({}, 'constructor')).toBeUndefined();
    expect(own({}, 'toString')).toBeUndefined();
    expect(own(JSON.parse('{"__proto__": 1}') as object, '__proto__')).toBe(1);
  });

  it('compact drops undefined only', () => {
    expect(compact({ a: 1, b: undefined, c: '', d: null })).toStrictEqual({ a: 1, c: '', d: null });
  });
});
