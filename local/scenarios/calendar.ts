/** Month arithmetic on `YYYY-MM` strings and the hour slot of the n-th charge of a month. */
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export const nextMonth = (month: string): string => {
  const [year, m] = month.split('-').map(Number);
  return m === 12 ? `${year + 1}-01` : `${year}-${pad(m + 1)}`;
};

export const previousMonth = (month: string): string => {
  const [year, m] = month.split('-').map(Number);
  return m === 1 ? `${year - 1}-12` : `${year}-${pad(m - 1)}`;
};

export const hourOf = (month: string, index: number): { start: string; end: string } => {
  const day = 1 + (index % 27);
  const hour = Math.floor(index / 27) % 24;
  const start = `${month}-${pad(day)}T${pad(hour)}:00:00Z`;
  const end =
    hour === 23
      ? `${month}-${pad(day + 1)}T00:00:00Z`
      : `${month}-${pad(day)}T${pad(hour + 1)}:00:00Z`;
  return { start, end };
};
