/**
 * CSV text → records (arrays of cell texts), fed in pieces of any size: RFC 4180 with `,` between
 * cells, `"` quoting a cell (`""` inside it is one quote), a record ending at `\n`, `\r\n` or `\r`.
 * Empty lines are not records. A record cut by the end of a piece is kept and completed by the next
 * one, so memory holds one piece and at most one record.
 *
 * Broken input is a `CsvSyntaxError`: a quote inside an unquoted cell, text after a closing quote, a
 * quote never closed, or a record longer than `maxRecordLength` characters (checked as soon as the
 * unfinished record is that long, so one endless record cannot fill the memory).
 *
 * Hand-written rather than `csv-parse` (which still reads the CLI's input files): on the export hot
 * path csv-parse's per-record async iteration cost as much as the whole FOCUS normalization; this
 * splitter reads about three times as many rows per CPU second (docs/benchmarks.md, exports section).
 */
export class CsvSyntaxError extends Error {}

const COMMA = 44;
const QUOTE = 34;
const LF = 10;
const CR = 13;

const INCOMPLETE = -1;

export class CsvRecordSplitter {
  private pending = '';

  constructor(private readonly maxRecordLength: number) {}

  /**
   * Appends the complete records of `text` (after what earlier pieces left) to `records`. On a
   * syntax error the records before the broken one are appended first, then the error is thrown.
   */
  push(text: string, records: string[][]): void {
    const input = this.pending === '' ? text : this.pending + text;
    this.pending = input.slice(this.split(input, false, records));
    if (this.pending.length > this.maxRecordLength) this.tooLong();
  }

  /** The last records, once the text has ended. */
  end(records: string[][]): void {
    const input = this.pending;
    this.pending = '';
    this.split(input, true, records);
  }

  /** Splits records off `text` from its start; returns where the unfinished rest begins. */
  private split(text: string, final: boolean, records: string[][]): number {
    let start = 0;
    while (start < text.length) {
      const first = text.charCodeAt(start);
      if (first === LF || first === CR) {
        start += first === CR && text.charCodeAt(start + 1) === LF ? 2 : 1;
        continue;
      }
      const cells: string[] = [];
      const next = this.record(text, start, final, cells);
      if (next === INCOMPLETE) return start;
      if (next - start > this.maxRecordLength) this.tooLong();
      records.push(cells);
      start = next;
    }
    return start;
  }

  /** Reads one record starting at `start` into `cells`; returns where the next one starts. */
  private record(text: string, start: number, final: boolean, cells: string[]): number {
    const length = text.length;
    let at = start;
    for (;;) {
      if (text.charCodeAt(at) === QUOTE) {
        at = this.quotedCell(text, at, final, cells);
        if (at === INCOMPLETE) return INCOMPLETE;
      } else {
        let end = at;
        for (; end < length; end += 1) {
          const code = text.charCodeAt(end);
          if (code === COMMA || code === LF || code === CR) break;
          if (code === QUOTE) {
            throw new CsvSyntaxError('a quote inside a cell that does not start with one');
          }
        }
        cells.push(text.slice(at, end));
        at = end;
      }
      if (at >= length) return final ? at : INCOMPLETE;
      const code = text.charCodeAt(at);
      if (code === COMMA) {
        at += 1;
        continue;
      }
      return at + (code === CR && text.charCodeAt(at + 1) === LF ? 2 : 1);
    }
  }

  /** A quoted cell opening at `open`; returns the position after its closing quote. */
  private quotedCell(text: string, open: number, final: boolean, cells: string[]): number {
    let value = '';
    let from = open + 1;
    for (;;) {
      const quote = text.indexOf('"', from);
      if (quote === -1 || (quote + 1 === text.length && !final)) {
        if (final) throw new CsvSyntaxError('a quoted cell is never closed');
        return INCOMPLETE;
      }
      if (text.charCodeAt(quote + 1) === QUOTE) {
        value += text.slice(from, quote + 1);
        from = quote + 2;
        continue;
      }
      const after = quote + 1;
      if (after < text.length) {
        const code = text.charCodeAt(after);
        if (code !== COMMA && code !== LF && code !== CR) {
          throw new CsvSyntaxError(`text after the closing quote of a cell: ${text[after]}`);
        }
      }
      cells.push(value + text.slice(from, quote));
      return after;
    }
  }

  private tooLong(): never {
    throw new CsvSyntaxError(`a record is longer than ${this.maxRecordLength} characters`);
  }
}
