/**
 * What the process exit code tells a script. Commands that wait for a run (`run --follow`,
 * `events`) exit with how the run ended; every other command exits 0 or ERROR.
 */
export const EXIT = {
  /** The command worked; for a followed run: it ended `done`. */
  OK: 0,
  /** A usage mistake, an API error, an unreachable API, or a followed run that ended `failed`. */
  ERROR: 1,
  /** A followed run ended `halted` (a budget cap, a failure it could not recover from) or `needs_input`. */
  HALTED: 2,
  /** A followed run ended `cancelled`. */
  CANCELLED: 3,
  /** `verify`: the run's record does not match its hash chain or signature (the first problem is printed). */
  NOT_INTACT: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for a run's final status (anything unknown or still running is an error). */
export function exitCodeForStatus(status: string | null | undefined): ExitCode {
  switch (status) {
    case 'done':
      return EXIT.OK;
    case 'halted':
    case 'needs_input':
      return EXIT.HALTED;
    case 'cancelled':
      return EXIT.CANCELLED;
    default:
      return EXIT.ERROR;
  }
}
