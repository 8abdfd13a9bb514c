/**
 * CSV text → records (arrays of cell texts), fed in pieces of any size: RFC 4180 with `,` between
 * cells, `"` quoting a cell (`""` inside it is one quote), a record ending at `\n`, `\r\n` or `\r`.
 * Empty lines are not records. A record cut by the end of a piece is continued by the next one from
 * where the reading stopped (its finished cells and the state are kept, its text is not read again),
 * so the work is linear in the text however it is cut, and memory holds one piece and one record.
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

/** Where the unquoted cell at `at` ends: its `,` or line end, else the end of the text. */
const unquotedEnd = (text: string, at: number): number => {
  let end = at;
  for (; end < text.length; end += 1) {
    const code = text.charCodeAt(end);
    if (code === COMMA || code === LF || code === CR) return end;
    if (code === QUOTE) {
      throw new CsvSyntaxError('a quote inside a cell that does not start with one');
    }
  }
  return end;
};

/**
 * Where the splitter stands between two characters: between records (skipping line ends), at the
 * start of a cell, inside an unquoted cell, inside a quoted cell, just after a quote inside a quoted
 * cell (a `""` or the closing quote: the next character decides), or after a closed quoted cell (a
 * `,` or a line end must follow).
 */
type State = 'between' | 'cellStart' | 'unquoted' | 'quoted' | 'quote' | 'closed';

export class CsvRecordSplitter {
  private state: State = 'between';
  /** The finished cells of the unfinished record. */
  private cells: string[] = [];
  /** The text of the unfinished cell so far (its earlier pieces). */
  private cell = '';
  /** Characters of the unfinished record read so far. */
  private recordLength = 0;

  constructor(private readonly maxRecordLength: number) {}

  /**
   * Appends the complete records of `text` (after what earlier pieces left) to `records`. Every
   * character is looked at once, whatever the size of the pieces: an unfinished record carries its
   * finished cells and its state over, never its text to be read again. On a syntax error the
   * records before the broken one are appended first, then the error is thrown.
   */
  push(text: string, records: string[][]): void {
    let at = 0;
    while (at < text.length) at = this.step(text, at, records);
  }

  /** The last records, once the text has ended. */
  end(records: string[][]): void {
    switch (this.state) {
      case 'between':
        return;
      case 'quoted':
        throw new CsvSyntaxError('a quoted cell is never closed');
      case 'cellStart':
      case 'unquoted':
      case 'quote':
        this.finishCell();
        break;
      case 'closed':
        break;
    }
    this.finishRecord(records);
  }

  /** Reads from `at` as far as the current state goes; returns where to go on. */
  private step(text: string, at: number, records: string[][]): number {
    const length = text.length;
    switch (this.state) {
      case 'between': {
        const code = text.charCodeAt(at);
        if (code === LF || code === CR) return at + 1;
        this.recordLength = 0;
        this.state = 'cellStart';
        return this.cellsFrom(text, at, records);
      }
      case 'cellStart':
        return this.cellsFrom(text, at, records);
      case 'unquoted': {
        const end = unquotedEnd(text, at);
        this.cell += text.slice(at, end);
        this.read(at, end);
        if (end === length) return end;
        this.finishCell();
        return this.delimiter(text.charCodeAt(end), end, records);
      }
      case 'quoted': {
        const quote = text.indexOf('"', at);
        const end = quote === -1 ? length : quote;
        this.cell += text.slice(at, end);
        this.read(at, end);
        if (quote === -1) return length;
        this.state = 'quote';
        return this.read(quote, quote + 1);
      }
      case 'quote': {
        if (text.charCodeAt(at) === QUOTE) {
          this.cell += '"';
          this.state = 'quoted';
          return this.read(at, at + 1);
        }
        this.finishCell();
        this.state = 'closed';
        return at;
      }
      case 'closed': {
        const code = text.charCodeAt(at);
        if (code !== COMMA && code !== LF && code !== CR) {
          throw new CsvSyntaxError(`text after the closing quote of a cell: ${text[at]}`);
        }
        return this.delimiter(code, at, records);
      }
    }
  }

  /**
   * From the start of a cell: unquoted cells (nearly all of an export) are read here in one loop,
   * cell after cell, up to the end of the record; a quoted cell, or the end of the piece, hands
   * over to the state machine.
   */
  private cellsFrom(text: string, start: number, records: string[][]): number {
    const length = text.length;
    let at = start;
    while (at < length) {
      if (text.charCodeAt(at) === QUOTE) {
        this.state = 'quoted';
        return this.read(at, at + 1);
      }
      const end = unquotedEnd(text, at);
      if (end === length) {
        this.cell = text.slice(at, end);
        this.state = 'unquoted';
        return this.read(at, end);
      }
      this.cells.push(text.slice(at, end));
      this.read(at, end + 1);
      if (text.charCodeAt(end) !== COMMA) {
        this.finishRecord(records);
        return end + 1;
      }
      at = end + 1;
    }
    return at;
  }

  /** A `,` (the next cell starts) or a line end (the record is finished) at `at`. */
  private delimiter(code: number, at: number, records: string[][]): number {
    const next = this.read(at, at + 1);
    if (code === COMMA) this.state = 'cellStart';
    else this.finishRecord(records);
    return next;
  }

  private finishCell(): void {
    this.cells.push(this.cell);
    this.cell = '';
  }

  private finishRecord(records: string[][]): void {
    records.push(this.cells);
    this.cells = [];
    this.state = 'between';
  }

  /** Counts `from`…`to` into the record's length; returns `to`. */
  private read(from: number, to: number): number {
    this.recordLength += to - from;
    if (this.recordLength > this.maxRecordLength) this.tooLong();
    return to;
  }

  private tooLong(): never {
    throw new CsvSyntaxError(`a record is longer than ${this.maxRecordLength} characters`);
  }
}
