/**
 * A connect failure as one line. Node's dual-stack connect (`localhost` → ::1 and 127.0.0.1) fails
 * with an AggregateError whose own message is empty: its addresses' messages are the text.
 */
export function connectErrorText(e: unknown): string {
  const err = e as { message?: string; code?: string; errors?: unknown[] };
  if (err?.message) return err.message;
  if (Array.isArray(err?.errors) && err.errors.length) return err.errors.map(connectErrorText).join('; ');
  return err?.code ?? String(e);
}
