import type { Style } from './terminal';

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Colour for a cell; applied after padding is measured on the plain text. */
  paint?: (value: string) => string;
}

/** A terminal whose width is unknown is taken to be the classic 80 columns. */
export const DEFAULT_TABLE_WIDTH = 80;
const GAP = 2;
/** A column is never cut below this (or its header), so an ellipsized cell still says something. */
const MIN_CUT_WIDTH = 6;

/**
 * Column widths that fit `maxWidth`: the widest column gives up one character at a time (so a long
 * project name or model is cut before the short status columns) until the line fits or nothing can shrink.
 */
export function fitWidths(natural: number[], headers: string[], maxWidth: number): number[] {
  const widths = [...natural];
  const floor = widths.map((w, i) => Math.min(w, Math.max(headers[i].length, MIN_CUT_WIDTH)));
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);
  while (total() > maxWidth) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i] > floor[i] && (widest === -1 || widths[i] > widths[widest])) widest = i;
    if (widest === -1) break;
    widths[widest]--;
  }
  return widths;
}

/** `text` in at most `width` characters, its end replaced by `…` when cut. */
export const ellipsize = (text: string, width: number): string => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`);

/** Aligned columns with a header, for a TTY, cut to fit `maxWidth` (the terminal's width). */
export function renderTable(columns: Column[], rows: string[][], style: Style, maxWidth = DEFAULT_TABLE_WIDTH): string[] {
  const natural = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const widths = fitWidths(natural, columns.map((c) => c.header), maxWidth);
  const pad = (s: string, i: number) => (columns[i].align === 'right' ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const header = columns.map((c, i) => pad(ellipsize(c.header, widths[i]), i)).join('  ').trimEnd();
  const lines = [style.bold(header)];
  for (const r of rows) {
    const cells = columns.map((c, i) => {
      const value = ellipsize(r[i] ?? '', widths[i]);
      const padded = pad(value, i);
      if (!c.paint || !value) return padded;
      // Paint the value only, not its padding, so the escape codes never shift the columns.
      return padded.replace(value, c.paint(value));
    });
    lines.push(cells.join('  ').trimEnd());
  }
  return lines;
}

/** One tab-separated line per row, no header: what `cut -f` and `awk -F'\t'` expect. */
export function renderPlainRows(rows: string[][]): string[] {
  return rows.map((r) => r.map((c) => c.replace(/[\t\n]/g, ' ')).join('\t'));
}
