/** CSV text → records, fed in pieces of any size: quoting, line endings, empty lines, broken text. */
import fc from 'fast-check';
import {
  CsvRecordSplitter,
  CsvSyntaxError,
} from '../../../lambda/core/exports/readers/csv-records';

const split = (pieces: string[], maxRecordLength = 1000): string[][] => {
  const splitter = new CsvRecordSplitter(maxRecordLength);
  const records: string[][] = [];
  for (const piece of pieces) splitter.push(piece, records);
  splitter.end(records);
  return records;
};

/** Every way of cutting `text` in two, plus one character at a time. */
const cuts = (text: string): string[][] => [
  ...Array.from({ length: text.length + 1 }, (_, at) => [text.slice(0, at), text.slice(at)]),
  [...text],
];

const errorOf = (run: () => unknown): CsvSyntaxError => {
  try {
    run();
  } catch (error) {
    if (error instanceof CsvSyntaxError) return error;
    throw error;
  }
  throw new Error('expected a CsvSyntaxError');
};

/** `text` in pieces of `size` characters. */
const piecesOf = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );

/**
 * Characters `run` looks at through the two ways the splitter reads text: one per `charCodeAt`
 * call, and for `indexOf` every character from where it starts to what it finds (or the end).
 */
const charactersExamined = (run: () => void): number => {
  const strings = String.prototype;
  const { charCodeAt, indexOf } = strings;
  let examined = 0;
  strings.charCodeAt = function (this: string, index: number) {
    examined += 1;
    return charCodeAt.call(this, index);
  };
  strings.indexOf = function (this: string, search: string, from = 0) {
    const hit = indexOf.call(this, search, from);
    examined += (hit === -1 ? this.length : hit + search.length) - Math.max(0, from);
    return hit;
  };
  try {
    run();
  } finally {
    strings.charCodeAt = charCodeAt;
    strings.indexOf = indexOf;
  }
  return examined;
};

describe('CsvRecordSplitter', () => {
  it('splits cells at commas and records at \\n, \\r\\n and \\r, wherever the pieces are cut', () => {
    const text = 'a,b,c\r\n1,,3\n"x, y","say ""hi""","line\r\nbreak"\r4,5,\n';
    const expected = [
      ['a', 'b', 'c'],
      ['1', '', '3'],
      ['x, y', 'say "hi"', 'line\r\nbreak'],
      ['4', '5', ''],
    ];
    for (const pieces of cuts(text)) expect(split(pieces)).toEqual(expected);
  });

  it('skips empty lines but keeps a line holding an empty quoted cell', () => {
    expect(split(['\n\r\na,b\n\n\r\n""\n\n'])).toEqual([['a', 'b'], ['']]);
  });

  it('ends the last record at the end of the text, with or without a line break', () => {
    expect(split(['a,b\n1,2'])).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(split(['a,"b"'])).toEqual([['a', 'b']]);
    expect(split([''])).toEqual([]);
  });

  it('reads any table written with RFC 4180 quoting back exactly, cut anywhere', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', ' ', 'é') });
    const table = fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), {
      minLength: 1,
      maxLength: 5,
    });
    fc.assert(
      fc.property(table, fc.nat(), (rows, at) => {
        const text = rows
          .map((row) => row.map((value) => `"${value.replaceAll('"', '""')}"`).join(','))
          .join('\r\n');
        const cut = at % (text.length + 1);
        expect(split([text.slice(0, cut), text.slice(cut)])).toEqual(rows);
        expect(split(piecesOf(text, (at % 7) + 1))).toEqual(rows);
      }),
    );
  });

  it('hands back the records before a broken one, then the error', () => {
    const splitter = new CsvRecordSplitter(1000);
    const records: string[][] = [];
    expect(() => splitter.push('a,b\n1,2\n3,x"y\n', records)).toThrow(CsvSyntaxError);
    expect(records).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('rejects a stray quote, text after a closing quote and a quote never closed', () => {
    expect(errorOf(() => split(['a,b"c\n'])).message).toMatch(/quote inside a cell/);
    expect(errorOf(() => split(['"a"b,c\n'])).message).toMatch(/after the closing quote/);
    expect(errorOf(() => split(['a,"b\n', 'c,d\n'])).message).toMatch(/never closed/);
  });

  it('rejects a record over the limit, also while it is still unfinished', () => {
    expect(errorOf(() => split([`${'x'.repeat(11)}\n`], 10)).message).toMatch(/longer than 10/);
    const splitter = new CsvRecordSplitter(10);
    expect(() => splitter.push(`"${'x'.repeat(20)}`, [])).toThrow(/longer than 10/);
  });

  it('looks at each character about once however finely a long record is cut (no rescans)', () => {
    const long = 'x'.repeat(20_000);
    const cases: [string, string[]][] = [
      [`${long},b\n`, [long, 'b']],
      [`"${long}",b\n`, [long, 'b']],
      [`"${'ab""'.repeat(5_000)}",b\r\n`, ['ab"'.repeat(5_000), 'b']],
    ];
    for (const [text, cells] of cases) {
      let records: string[][] = [];
      const examined = charactersExamined(() => {
        records = split(piecesOf(text, 100), 100_000);
      });
      expect(records).toEqual([cells]);
      expect(examined).toBeLessThanOrEqual(2 * text.length);
    }
  });
});
