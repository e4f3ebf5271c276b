import { resumeBody, UsageError, type OptionValues } from './cli-args';

/** What POST /v1/runs/:id/appeal takes (apps/api/src/appeal-request.schema.ts). */
export interface AppealBody {
  evidence?: string[];
  /** Entries of the ledger of the idea the run was submitted on (E1 …), which the api turns into evidence texts. */
  evidence_ids?: string[];
  judges: string[];
  caps?: ReturnType<typeof resumeBody>['caps'];
}

const listOf = (v: OptionValues[string]): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []);

/**
 * The body from `appeal`'s options: every --evidence as one item, every --evidence-id (or E1,E2) as a ledger entry,
 * every --judge (or J1,J2) as judges.
 * Only presence is checked here; the API checks the judges' names and says which are known.
 */
export function appealBody(values: OptionValues): AppealBody {
  const evidence = listOf(values.evidence).map((e) => e.trim()).filter(Boolean);
  const judges = listOf(values.judge).flatMap((j) => j.split(',')).map((j) => j.trim().toLowerCase()).filter(Boolean);
  const ids = listOf(values['evidence-id']).flatMap((e) => e.split(',')).map((e) => e.trim().toUpperCase()).filter(Boolean);
  if (!evidence.length && !ids.length) throw new UsageError('appeal needs --evidence TEXT or --evidence-id E (at least one item; repeat it for more)', 'appeal');
  if (!judges.length) throw new UsageError('appeal needs --judge J (who re-scores: vc, engineer, pm, customer, competitor)', 'appeal');
  const { caps } = resumeBody({ ...values, from: undefined });
  return { ...(evidence.length ? { evidence } : {}), ...(ids.length ? { evidence_ids: ids } : {}), judges, ...(caps ? { caps } : {}) };
}
