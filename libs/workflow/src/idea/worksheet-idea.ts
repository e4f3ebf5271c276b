import { type IdeaDiff, type IdeaInput, type Worksheet, WORKSHEET_FIELDS } from '@roundtable/contracts';

/** What a prompt needs of a ledger entry. */
export interface LedgerText {
  id: string;
  claim: string;
  source: string;
}

/** A ledger entry as it enters a prompt: its id first, so a judge (and a reader of the prompt) can cite it. */
export function evidenceText(e: LedgerText): string {
  return `[${e.id}] ${e.claim} — ${e.source}`;
}

/**
 * A worksheet version as the inline idea the panel workflow takes (issue 23): the solution is what
 * it is, the problem, assumptions and open risks are said beside it, and the cited ledger entries
 * are its evidence, each prefixed with its id. `ledger` must hold every cited id.
 */
export function ideaOfWorksheet(w: Worksheet, ledger: ReadonlyMap<string, LedgerText>): IdeaInput {
  const parts = [w.solution.trim(), `Problem: ${w.problem.trim()}`];
  if (w.assumptions.length) parts.push(`Assumptions: ${w.assumptions.map((a) => a.trim()).join('; ')}`);
  if (w.open_risks.length) parts.push(`Open risks: ${w.open_risks.map((r) => r.trim()).join('; ')}`);
  return {
    title: w.title.trim(),
    description: parts.join('\n'),
    target_user: w.target_user.trim(),
    evidence: w.evidence.map((id) => {
      const e = ledger.get(id);
      if (!e) throw new Error(`worksheet cites ${id}, which the ledger does not hold`);
      return evidenceText(e);
    }),
  };
}

/** The edit laid over its base: a field given replaces the base's, a field left out stays. */
export function applyEdit(base: Worksheet, edit: Partial<Worksheet>): Worksheet {
  const next = { ...base };
  for (const f of WORKSHEET_FIELDS) if (edit[f] !== undefined) (next as Record<string, unknown>)[f] = edit[f];
  return next;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Field by field, in the worksheet's order: each field's value in both versions and whether it changed. */
export function worksheetDiff(ideaId: string, from: { version: number; worksheet: Worksheet }, to: { version: number; worksheet: Worksheet }): IdeaDiff {
  return {
    idea_id: ideaId,
    from: from.version,
    to: to.version,
    fields: WORKSHEET_FIELDS.map((field) => ({ field, changed: !same(from.worksheet[field], to.worksheet[field]), from: from.worksheet[field], to: to.worksheet[field] })),
  };
}
