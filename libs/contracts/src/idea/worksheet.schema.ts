import { z } from 'zod';

/**
 * An idea's worksheet (issue 23): what a panel is run on, kept as numbered versions. A version is
 * never changed once written; an edit is a new version (copy-on-write). Readiness
 * (libs/workflow/src/idea/readiness.ts) decides whether a version may be judged; these schemas
 * only bound what may be stored, so a draft that is not ready yet can still be kept.
 */

/** Stored caps (far above readiness' limits): a worksheet is text a person wrote, not a file. */
export const WORKSHEET_MAX_TEXT = 20_000;
export const WORKSHEET_MAX_ITEMS = 100;

/** A ledger entry's id within its idea: E1, E2 … */
export const EvidenceId = z.string().regex(/^E[1-9][0-9]{0,5}$/, 'an evidence id is E followed by its number, e.g. E1');
export type EvidenceId = z.infer<typeof EvidenceId>;

const text = (field: string) => z.string({ error: `${field} must be text` }).max(WORKSHEET_MAX_TEXT, `${field} is longer than ${WORKSHEET_MAX_TEXT} characters`);
const list = (field: string) =>
  z
    .array(z.string({ error: `${field} items must be text` }).max(WORKSHEET_MAX_TEXT, `${field} items are at most ${WORKSHEET_MAX_TEXT} characters`), { error: `${field} must be a list of text items` })
    .max(WORKSHEET_MAX_ITEMS, `${field} holds at most ${WORKSHEET_MAX_ITEMS} items`);

export const WORKSHEET_FIELDS = ['title', 'problem', 'target_user', 'solution', 'evidence', 'assumptions', 'open_risks', 'no_evidence_yet'] as const;
export type WorksheetField = (typeof WORKSHEET_FIELDS)[number];

/** One version's content. `evidence` cites ledger entries by id; `no_evidence_yet: true` says, explicitly, that there is none. */
const FIELD = {
  title: text('title'),
  problem: text('problem'),
  target_user: text('target_user'),
  solution: text('solution'),
  evidence: z.array(EvidenceId, { error: 'evidence must be a list of ledger entry ids, e.g. ["E1"]' }).max(WORKSHEET_MAX_ITEMS, `evidence cites at most ${WORKSHEET_MAX_ITEMS} entries`),
  assumptions: list('assumptions'),
  open_risks: list('open_risks'),
  no_evidence_yet: z.boolean({ error: 'no_evidence_yet must be true or false' }),
};

export const Worksheet = z
  .object({
    ...FIELD,
    evidence: FIELD.evidence.default([]),
    assumptions: FIELD.assumptions.default([]),
    open_risks: FIELD.open_risks.default([]),
    no_evidence_yet: FIELD.no_evidence_yet.default(false),
  })
  .strict();
export type Worksheet = z.infer<typeof Worksheet>;

/** Unknown fields are refused, not ignored, so a typo cannot pass silently; the message names them. */
const unknownKeys = (what: string, fields: readonly string[]) => (iss: { code?: string; keys?: string[] } & object) =>
  iss.code === 'unrecognized_keys' && 'keys' in iss && iss.keys
    ? iss.keys.map((k) => `${k} is not a field of ${what} (${fields.join(', ')})`).join('; ')
    : `the body must be a JSON object: ${what}`;

/** POST /v1/ideas: the first version's worksheet. */
export const CreateIdeaRequest = z.object(Worksheet.shape, { error: unknownKeys('a worksheet', WORKSHEET_FIELDS) }).strict();
export type CreateIdeaRequest = z.input<typeof CreateIdeaRequest>;

/**
 * POST /v1/ideas/:id/versions: the fields that change, laid over `base_version` (default: the
 * latest) to make the next version. A locked base (a panel scored it) is refused: 409.
 */
export const EditIdeaRequest = z
  .object(
    {
      // No defaults here: a field left out is a field that does not change.
      ...z.object(FIELD).partial().shape,
      base_version: z.number({ error: 'base_version must be a version number' }).int().positive('base_version must be a version number, from 1').optional(),
    },
    { error: unknownKeys('an edit', [...WORKSHEET_FIELDS, 'base_version']) },
  )
  .strict()
  .refine((e) => WORKSHEET_FIELDS.some((f) => e[f] !== undefined), { message: `an edit changes at least one field (${WORKSHEET_FIELDS.join(', ')})` });
export type EditIdeaRequest = z.input<typeof EditIdeaRequest>;

export const EVIDENCE_KINDS = ['interview', 'metric', 'document', 'experiment_result'] as const;
export const EvidenceKind = z.enum(EVIDENCE_KINDS, { error: `kind must be one of ${EVIDENCE_KINDS.join(', ')}` });
export type EvidenceKind = z.infer<typeof EvidenceKind>;

/** POST /v1/ideas/:id/evidence: one ledger entry. Entries are never changed; a correction supersedes one. */
export const LogEvidenceRequest = z
  .object(
    {
    claim: z.string({ error: 'claim must be text' }).trim().min(1, 'claim says what was found').max(4000, 'claim is at most 4000 characters'),
    source: z.string({ error: 'source must be text' }).trim().min(1, 'source says where it comes from').max(2000, 'source is at most 2000 characters'),
    kind: EvidenceKind,
    date: z.iso.date({ error: 'date must be an ISO date, e.g. 2026-03-31' }),
    supersedes: EvidenceId.optional(),
    },
    { error: unknownKeys('a ledger entry', ['claim', 'source', 'kind', 'date', 'supersedes']) },
  )
  .strict();
export type LogEvidenceRequest = z.input<typeof LogEvidenceRequest>;

/** In a panel project file, instead of `idea`: the worksheet version to judge. The api resolves it into the inline idea. */
export const IdeaRef = z
  .object({
    id: z.string({ error: 'idea_ref.id names an idea (idea_…)' }).regex(/^idea_[0-9a-f]{10}$/, 'idea_ref.id names an idea, e.g. idea_0123456789'),
    version: z.number({ error: 'idea_ref.version must be a version number' }).int().positive(),
  })
  .strict();
export type IdeaRef = z.infer<typeof IdeaRef>;
