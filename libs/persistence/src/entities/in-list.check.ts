/**
 * The SQL of a CHECK constraint limiting a text column to a fixed vocabulary. Entities build
 * their @Check from the same const arrays their TypeScript unions come from, so the type and
 * the constraint cannot list different values; the migration spells the SQL out and the
 * schema-drift test compares the two.
 */
export function inListCheck(column: string, values: readonly string[]): string {
  return `"${column}" IN (${values.map((v) => `'${v}'`).join(', ')})`;
}
