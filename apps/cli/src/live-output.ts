import type { OutStream } from './terminal';

const ANSI = /\x1b\[[0-9;]*m/g;
const CLEAR_LINE = '\r\x1b[2K';

/**
 * Lines for a followed run plus one progress line. On a TTY the progress line sits below the
 * last line and is redrawn in place; elsewhere it is an ordinary line, printed only when the
 * caller asks (at stage changes), so a log file gets a readable record rather than a flood.
 */
export class LiveOutput {
  private progressShown = false;
  private shownText = '';

  constructor(
    private readonly stream: OutStream,
    private readonly tty: boolean,
  ) {}

  lines(lines: string[]): void {
    if (!lines.length) return;
    this.clearProgress();
    this.stream.write(lines.map((l) => `${l}\n`).join(''));
  }

  progress(text: string): void {
    if (!this.tty) {
      this.stream.write(`${text}\n`);
      return;
    }
    // Most events change nothing the progress line shows: leave the terminal alone then.
    if (this.progressShown && text === this.shownText) return;
    this.clearProgress();
    this.stream.write(fitToWidth(text, this.stream.columns));
    this.progressShown = true;
    this.shownText = text;
  }

  /** Leaves the terminal clean: the progress line is removed, not left half-drawn. */
  finish(): void {
    this.clearProgress();
  }

  private clearProgress(): void {
    if (!this.progressShown) return;
    this.stream.write(CLEAR_LINE);
    this.progressShown = false;
  }
}

/** A redrawn line must not wrap, or `\r` would only return to its last row. */
function fitToWidth(text: string, columns: number | undefined): string {
  if (!columns || columns < 10) return text;
  const visible = text.replace(ANSI, '');
  if (visible.length < columns) return text;
  return `${visible.slice(0, columns - 2)}…`;
}
