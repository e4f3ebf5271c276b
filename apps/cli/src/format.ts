/** How numbers look in human output: the seed §9 notation (1.9s, in=812, $0.01, 20,461 tokens). */

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Dollars: cents for ordinary amounts, more digits when a sub-cent amount would round to $0.00. */
export function fmtUsd(n: number): string {
  if (n > 0 && n < 0.01) return `$${n.toFixed(4)}`;
  return `$${n.toFixed(2)}`;
}

export const fmtSeconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** 200000 → 200k, 1500000 → 1.5M: the header's short form for caps. */
export function fmtShort(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${+(n / 1_000).toFixed(1)}k`;
  return String(n);
}

/** Whole seconds of a wall-clock span, as the seed prints them (49s). */
export const fmtWholeSeconds = (s: number): string => `${Math.round(s)}s`;

export function fmtConfidence(c: number | null | undefined): string {
  return typeof c === 'number' ? c.toFixed(2) : 'n/a';
}
