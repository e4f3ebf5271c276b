/** Where the CLI writes, and whether it may dress the output up (colour, tables, in-place redraw). */

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  env: Record<string, string | undefined>;
  cwd: string;
}

export type Paint = (s: string) => string;

export interface Style {
  /** Colour codes are being written (a TTY, NO_COLOR unset). */
  colour: boolean;
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
  magenta: Paint;
}

const sgr =
  (open: number, close: number): Paint =>
  (s) =>
    `\x1b[${open}m${s}\x1b[${close}m`;
const plain: Paint = (s) => s;

/** A TTY may get tables and in-place redraws; a pipe or a file gets plain lines. */
export const isTty = (stream: OutStream): boolean => stream.isTTY === true;

/** Colours only on a TTY and only when NO_COLOR (https://no-color.org) is unset or empty. */
export function styleFor(stream: OutStream, env: Record<string, string | undefined>): Style {
  const colour = isTty(stream) && !env.NO_COLOR;
  if (!colour) return { colour, bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, magenta: plain };
  return {
    colour,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    magenta: sgr(35, 39),
  };
}

/** ACCEPT green, REJECT red, anything else that asks for more work yellow. */
export function paintVerdict(style: Style, verdict: string): string {
  if (verdict === 'ACCEPT' || verdict === 'GO' || verdict === 'PASS') return style.green(verdict);
  if (verdict === 'REJECT' || verdict === 'NO-GO' || verdict === 'KILL') return style.red(verdict);
  return style.yellow(verdict);
}

export function paintStatus(style: Style, status: string): string {
  switch (status) {
    case 'done':
      return style.green(status);
    case 'failed':
      return style.red(status);
    case 'halted':
    case 'needs_input':
    case 'cancelled':
      return style.yellow(status);
    default:
      return style.cyan(status);
  }
}
