/**
 * A model-chosen path was refused. Thrown before anything is read or written, so a caller
 * can report the reason back to the engineer and the workspace is left as it was.
 */
export class PathEscapeError extends Error {
  readonly code = 'PATH_ESCAPE' as const;

  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`Refusing workspace path ${JSON.stringify(path)}: ${reason}`);
    this.name = 'PathEscapeError';
  }
}
