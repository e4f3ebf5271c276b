/** Thrown at boot so a service never runs against a schema older than its entities. */
export class DatabaseNotMigratedError extends Error {
  readonly code = 'DATABASE_NOT_MIGRATED';

  constructor(
    readonly redactedUrl: string,
    readonly pending: readonly string[],
  ) {
    super(
      `database at ${redactedUrl} is not migrated: run \`npm run db:migrate\`` +
        ` (pending: ${pending.join(', ')})`,
    );
    this.name = 'DatabaseNotMigratedError';
  }
}
