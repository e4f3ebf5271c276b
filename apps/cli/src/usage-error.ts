/** A mistake on the command line: printed with a pointer to --help, exit 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string | null = null,
  ) {
    super(message);
  }
}
