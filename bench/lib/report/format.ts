/** Number formatting shared by the goals, the markdown and the SVG (en-US, fixed digits). */
export const formatNumber = (value: number, digits = 2): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        maximumFractionDigits: digits,
        minimumFractionDigits: digits,
      })
    : 'n/a';

/** `a / b` as `1.23×`; `n/a` when there is nothing to divide by. */
export const formatRatio = (a: number, b: number): string =>
  b === 0 ? 'n/a' : `${formatNumber(a / b)}×`;
