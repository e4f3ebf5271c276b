/**
 * What the run page offers, decided from the run as folded (the view) and as the api describes it
 * (the detail): offered only where the api accepts the act, so a click is never a predictable 409.
 * Pure, so a spec pins each decision (act-offers.spec.ts).
 */

/** The statuses the api accepts a cancel on: any run not yet ended (run-control.service.ts). */
const CANCELLABLE: ReadonlySet<string> = new Set(['queued', 'running', 'awaiting_approval']);

/** The run's status: the stream's once it has said one, else the detail's, else unknown (nothing offered). */
export function actStatusOf(viewStatus: string, detailStatus: string | null | undefined): string {
  if (viewStatus !== 'unknown') return viewStatus;
  return detailStatus ?? 'unknown';
}

/** Cancel: a run that has not ended. Never on an unknown status (a run the api has not described, or none). */
export const offersCancel = (status: string): boolean => CANCELLABLE.has(status);

/** Resume: only on the workflow's resumable statuses (the build: halted, needs_input, failed; never cancelled or done). */
export const offersResume = (resumable: ReadonlySet<string> | null | undefined, status: string): boolean => !!resumable && resumable.has(status);

/**
 * Appeal: a done panel that has not used its one appeal. An appeal is used once it started (the
 * view has its appeal_started, or the detail its appeal); a refused one never started, so the run
 * keeps it and the form stays.
 */
export function offersAppeal(status: string, o: { appealsStarted: number; detailAppeal: unknown }): boolean {
  if (status !== 'done') return false;
  return o.appealsStarted === 0 && (o.detailAppeal === null || o.detailAppeal === undefined);
}

/**
 * The api's 404 for the run, as the page's not-found message: the detail's own (`no run <id>`),
 * or the event stream's refusal when it said 404. Null while the run may exist.
 */
export function runNotFound(detailError: { status?: number; message: string } | null, streamRefusal: { status: number; message: string } | null): string | null {
  if (detailError?.status === 404) return detailError.message;
  if (streamRefusal?.status === 404) return streamRefusal.message;
  return null;
}
