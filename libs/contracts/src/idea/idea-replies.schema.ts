import { z } from 'zod';
import { PanelMemory } from '../panel/panel-memory.schema';
import { IdeaHandoff } from './handoff.schema';
import { EvidenceKind, Worksheet, WORKSHEET_FIELDS } from './worksheet.schema';

/** One readiness check, passed or not (libs/workflow/src/idea/readiness.ts). */
export const ReadinessCheck = z.object({ check: z.string(), ok: z.boolean(), message: z.string(), path: z.string().describe('the worksheet field it is about') });
export const Readiness = z.object({ ready: z.boolean(), checks: z.array(ReadinessCheck) });
export type ReadinessCheck = z.infer<typeof ReadinessCheck>;
export type Readiness = z.infer<typeof Readiness>;

export const IdeaLock = z.object({ run_id: z.string(), locked_at: z.string() }).describe('the panel run that scored this version, which may no longer change');

export const IdeaVersion = z.object({
  idea_id: z.string(),
  version: z.number().int(),
  worksheet: Worksheet,
  created_by: z.string(),
  created_at: z.string(),
  locked: IdeaLock.nullable(),
  panels: z.array(z.string()).describe('the panel runs submitted on this version'),
});
export type IdeaVersion = z.infer<typeof IdeaVersion>;

/** GET /v1/ideas/:id/versions/:n: a version with its readiness. */
export const IdeaVersionDetail = IdeaVersion.extend({ readiness: Readiness });
export type IdeaVersionDetail = z.infer<typeof IdeaVersionDetail>;

export const IdeaVersionList = z.array(IdeaVersion);

export const IdeaSummary = z.object({ id: z.string(), title: z.string(), latest_version: z.number().int(), created_by: z.string(), created_at: z.string(), updated_at: z.string() });
/** One idea as GET /v1/ideas lists it: the versions a panel locked and how many panels ran on it, so a list needs no detail per idea. */
export const IdeaListItem = IdeaSummary.extend({
  locked_versions: z.array(z.number().int()).describe('the versions a panel locked, in order'),
  panels: z.number().int().describe('how many panel runs judged a version of it'),
});
export type IdeaListItem = z.infer<typeof IdeaListItem>;
export const IdeaList = z.array(IdeaListItem);
export type IdeaSummary = z.infer<typeof IdeaSummary>;

/** GET /v1/ideas/:id (and the 201 of POST /v1/ideas): the latest version, every version's lock and panels, and the builds handed on from it. */
export const IdeaDetail = IdeaSummary.extend({
  latest: IdeaVersion,
  versions: z.array(z.object({ version: z.number().int(), locked: IdeaLock.nullable(), panels: z.array(z.string()) })),
  memory: z.array(PanelMemory).describe("the idea's memory: a summary of each panel on it that ended done, newest first (what the next panel on it is shown)"),
  handoffs: z.array(IdeaHandoff).describe('the builds handed on from this idea (POST /v1/ideas/:id/handoff), oldest first'),
});
export type IdeaDetail = z.infer<typeof IdeaDetail>;

export const EvidenceEntry = z.object({
  id: z.string().describe('E1, E2 … within the idea'),
  idea_id: z.string(),
  claim: z.string(),
  source: z.string(),
  kind: EvidenceKind,
  date: z.string(),
  supersedes: z.string().nullable(),
  superseded_by: z.string().nullable().describe('the later entry that corrects this one, if any'),
  logged_by: z.string(),
  logged_at: z.string(),
});
export type EvidenceEntry = z.infer<typeof EvidenceEntry>;
export const EvidenceList = z.array(EvidenceEntry);

export const IdeaFieldDiff = z.object({ field: z.enum(WORKSHEET_FIELDS), changed: z.boolean(), from: z.unknown(), to: z.unknown() });
export const IdeaDiff = z.object({ idea_id: z.string(), from: z.number().int(), to: z.number().int(), fields: z.array(IdeaFieldDiff) });
export type IdeaDiff = z.infer<typeof IdeaDiff>;
