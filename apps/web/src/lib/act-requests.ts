/**
 * The bodies of the run page's acts, from what the forms hold (text): POST /v1/runs/:id/resume
 * (apps/api resume-request.schema.ts) and /appeal (appeal-request.schema.ts). The api checks them
 * again and names the field on a 400; checking here first says so before a round trip.
 */

/** The caps a resume or an appeal may raise, as the budget names them. */
export const CAP_FIELDS = [
  { name: 'max_calls', label: 'Max calls', whole: true },
  { name: 'max_tokens', label: 'Max tokens', whole: true },
  { name: 'max_cost_usd', label: 'Max cost (USD)', whole: false },
  { name: 'max_seconds', label: 'Max seconds', whole: false },
  { name: 'max_rounds', label: 'Max rounds', whole: true },
  { name: 'max_fix_rounds', label: 'Max fix rounds', whole: true },
] as const;
export type CapName = (typeof CAP_FIELDS)[number]['name'];

export type FormIssues = Record<string, string>;

export type Built<T> = { ok: true; body: T } | { ok: false; issues: FormIssues };

function capsOf(input: Partial<Record<CapName, string>>, issues: FormIssues): Partial<Record<CapName, number>> | undefined {
  const caps: Partial<Record<CapName, number>> = {};
  for (const f of CAP_FIELDS) {
    const raw = input[f.name]?.trim();
    if (!raw) continue;
    const n = Number(raw);
    const path = `caps.${f.name}`;
    if (!Number.isFinite(n)) issues[path] = `${path} must be a number`;
    else if (f.whole && !Number.isInteger(n)) issues[path] = `${path} must be a whole number`;
    else if (f.name === 'max_fix_rounds' ? n < 0 : n <= 0) issues[path] = f.name === 'max_fix_rounds' ? `${path} must be 0 or more` : `${path} must be above 0`;
    else caps[f.name] = n;
  }
  return Object.keys(caps).length ? caps : undefined;
}

export function resumeBody(input: { from?: string; caps: Partial<Record<CapName, string>> }): Built<{ from?: string; caps?: Partial<Record<CapName, number>> }> {
  const issues: FormIssues = {};
  const caps = capsOf(input.caps, issues);
  if (Object.keys(issues).length) return { ok: false, issues };
  const body: { from?: string; caps?: Partial<Record<CapName, number>> } = {};
  if (input.from) body.from = input.from;
  if (caps) body.caps = caps;
  return { ok: true, body };
}

/** Evidence is typed one item a line; blank lines are not items. */
export function appealBody(input: { evidence: string; judges: string[]; caps: Partial<Record<CapName, string>> }): Built<{ evidence: string[]; judges: string[]; caps?: Partial<Record<CapName, number>> }> {
  const issues: FormIssues = {};
  const evidence = input.evidence.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (!evidence.length) issues.evidence = 'evidence must hold at least one item (one a line)';
  if (!input.judges.length) issues.judges = 'judges must name at least one judge';
  const caps = capsOf(input.caps, issues);
  if (Object.keys(issues).length) return { ok: false, issues };
  return { ok: true, body: caps ? { evidence, judges: input.judges, caps } : { evidence, judges: input.judges } };
}
