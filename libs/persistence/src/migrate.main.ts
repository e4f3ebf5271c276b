import { runMigrations } from './data-source';
import { redactDatabaseUrl } from './redact-database-url';

/** `npm run db:migrate`: applies pending migrations to DATABASE_URL and says what it did. */
async function main(): Promise<number> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error(
      'DATABASE_URL is not set: set it to the Postgres URL to migrate, ' +
        'e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundtable npm run db:migrate',
    );
    return 1;
  }
  const applied = await runMigrations(url);
  const where = redactDatabaseUrl(url);
  if (applied.length === 0) {
    console.log(`database at ${where} is up to date: no migrations to apply`);
  } else {
    console.log(`applied ${applied.length} migration(s) to ${where}:`);
    for (const name of applied) console.log(`  ${name}`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const where = process.env.DATABASE_URL ? redactDatabaseUrl(process.env.DATABASE_URL) : 'the database';
    console.error(`migrating ${where} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
