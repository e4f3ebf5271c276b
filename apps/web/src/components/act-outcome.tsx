import { ApiHttpError } from '../lib/api-client';

/** An act's failure as a person reads it: the api's message (it names the field or the fix), its issues, its code. */
export function actError(e: unknown): string {
  if (e instanceof ApiHttpError) {
    // A gate's 403 names the approve role it needs; any other 403 is a read-only token.
    if (e.status === 403) return e.body?.message.includes('approve role') ? e.body.message : 'This token is read-only: acting on a run needs a write token.';
    const issues = e.body?.issues?.map((i) => `${i.path}: ${i.message}`).join('; ');
    return `${e.message}${issues ? ` — ${issues}` : ''}${e.body?.error ? ` (${e.body.error})` : ''}`;
  }
  return `Could not reach the api: ${(e as Error).message}`;
}

/** What the api said no to, beside the act (a success is said by the page: the form may leave once the run moves on). */
export function Outcome({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="error" data-testid="act-outcome">
      {error}
    </p>
  );
}
