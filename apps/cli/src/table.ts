import type { Style } from './terminal';

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Colour for a cell; applied after padding is measured on the plain text. */
  paint?: (value: string) => string;
}

/** Aligned columns with a header, for a TTY. */
export function renderTable(columns: Column[], rows: string[][], style: Style): string[] {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const pad = (s: string, i: number) => (columns[i].align === 'right' ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const header = columns.map((c, i) => pad(c.header, i)).join('  ').trimEnd();
  const lines = [style.bold(header)];
  for (const r of rows) {
    const cells = columns.map((c, i) => {
      const padded = pad(r[i] ?? '', i);
      if (!c.paint || !r[i]) return padded;
      // Paint the value only, not its padding, so the escape codes never shift the columns.
      return padded.replace(r[i], c.paint(r[i]));
    });
    lines.push(cells.join('  ').trimEnd());
  }
  return lines;
}

/** One tab-separated line per row, no header: what `cut -f` and `awk -F'\t'` expect. */
export function renderPlainRows(rows: string[][]): string[] {
  return rows.map((r) => r.map((c) => c.replace(/[\t\n]/g, ' ')).join('\t'));
}
