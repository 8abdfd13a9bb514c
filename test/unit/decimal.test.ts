import fc from 'fast-check';
import { addDecimals, subtractDecimals, toDecimal } from '../../lambda/core/decimal';
import { ValidationError } from '../../lambda/core/errors';

describe('toDecimal', () => {
  it.each([
    ['12.30', '12.3'],
    [12.3, '12.3'],
    ['12.3', '12.3'],
    ['1.23e1', '12.3'],
    [' 0012.300 ', '12.3'],
    ['-0', '0'],
    ['-0.000', '0'],
    [-0, '0'],
    ['0.1070000000', '0.107'],
    ['1e-10', '0.0000000001'],
    ['-25.00', '-25'],
    ['1500', '1500'],
    ['123456789012345678901234567.5', '123456789012345678901234567.5'],
  ])('%p → %p', (input, expected) => {
    expect(toDecimal(input, 'amount')).toBe(expected);
  });

  it.each([
    ['abc'],
    [''],
    ['1e400'],
    [NaN],
    [Infinity],
    ['0.00000000001'],
    [null],
    [{}],
    ['1,5'],
    ['0x10'],
  ])('rejects %p with a field-named validation error', (input) => {
    expect(() => toDecimal(input, 'amount')).toThrow(ValidationError);
    try {
      toDecimal(input, 'amount');
    } catch (error) {
      expect((error as ValidationError).field).toBe('amount');
    }
  });

  it('is exact where floats are not', () => {
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
    expect(subtractDecimals('0.0749', '0.107')).toBe('-0.0321');
  });

  it('is idempotent and format-independent for any decimal with at most 10 fraction digits', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.integer({ min: 0, max: 10 }),
        (units, scale) => {
          const negative = units < 0n;
          const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
          const plain = `${negative ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale ? '.' + digits.slice(-scale) : ''}`;
          const canonical = toDecimal(plain, 'amount');
          expect(toDecimal(canonical, 'amount')).toBe(canonical);
          expect(toDecimal(`${plain}${scale ? '' : '.'}000`, 'amount')).toBe(canonical);
          expect(toDecimal(`${plain}e0`, 'amount')).toBe(canonical);
          expect(canonical).not.toMatch(/e|E|\.$|\.\d*0$|^-0$/);
        },
      ),
    );
  });
});
