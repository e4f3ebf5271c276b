import { z } from 'zod';

/**
 * Characters no file path needs, which would let a path break the line it is shown on (in a
 * prompt, a report, a log) and go on as text of its own, or read in another order than it is
 * written: C0 and C1 controls (newline, CR, tab, NUL, DEL, NEL …), the Unicode line and
 * paragraph separators, and the bidirectional embedding, override and isolate controls.
 */
const CONTROL_IN_PATH = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

const codePoint = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why a model-chosen path is unsafe, or null when it is a plain relative path.
 * The test-runner checks symlinks on disk as well; this is the check that needs no disk.
 */
export function unsafePathReason(p: string): string | null {
  // JSON-quoted so a NUL byte or backslash shows up escaped, the way the model wrote it; JSON
  // leaves DEL, C1 controls, line separators and bidi controls raw, so those are escaped too.
  const shown = JSON.stringify(p).replace(new RegExp(CONTROL_IN_PATH.source, 'gu'), (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  if (p.trim() === '') return `path ${shown} is empty`;
  if (p.includes('\0')) return `${shown} contains a NUL byte`;
  const control = CONTROL_IN_PATH.exec(p);
  if (control) return `${shown} contains a control character (${codePoint(control[0])}); a path is printable text on one line`;
  if (p.startsWith('/') || p.startsWith('\\') || /^[a-zA-Z]:/.test(p)) return `${shown} is absolute; use a path relative to the workspace`;
  if (p.includes('\\')) return `${shown} contains a backslash; use forward slashes`;
  const segments = p.split('/');
  if (segments.some((seg) => seg === '..')) return `${shown} contains '..'; paths must stay inside the workspace`;
  // The sandbox refuses these too; catching them here gets a repair call instead of a failed write.
  if (segments.every((seg) => seg === '' || seg === '.')) return `${shown} names no file; give a file path such as src/app.py`;
  // The run's history lives in .git: a hook written there would run on the host at the next commit.
  if (segments.some((seg) => seg.toLowerCase() === '.git')) return `${shown} is inside .git; only the project's files may be changed`;
  return null;
}

export const FileChange = z
  .object({ path: z.string(), content: z.string() })
  .superRefine((f, ctx) => {
    const why = unsafePathReason(f.path);
    if (why) ctx.addIssue({ code: 'custom', path: ['path'], message: why });
  });
export type FileChange = z.infer<typeof FileChange>;

export const DEFAULT_TEST_COMMAND = 'python -m pytest -q';

/** A file the engineer removes from the workspace: a relative path, checked like FileChange's. */
export const DeletedPath = z.string().superRefine((p, ctx) => {
  const why = unsafePathReason(p);
  if (why) ctx.addIssue({ code: 'custom', message: why });
});

const ImplementationFields = z.object({
  proposal_id: z.string().min(1),
  /** The full content of every file created or changed. */
  files: z.array(FileChange),
  /** Files to delete (a refactor that removes a module); absent or empty when none. */
  deleted: z.array(DeletedPath).optional(),
  test_command: z.string().min(1).default(DEFAULT_TEST_COMMAND),
  notes: z.string(),
  assumptions: z.array(z.string()),
  known_gaps: z.array(z.string()),
});

export const Implementation = ImplementationFields.superRefine((impl, ctx) => {
  if (impl.files.length === 0 && !impl.deleted?.length) {
    ctx.addIssue({ code: 'custom', path: ['files'], message: 'an implementation must change at least one file (files) or delete one (deleted)' });
  }
  const written = new Set(impl.files.map((f) => f.path));
  for (const [i, p] of (impl.deleted ?? []).entries()) {
    if (written.has(p)) ctx.addIssue({ code: 'custom', path: ['deleted', i], message: `${JSON.stringify(p)} is both written (files) and deleted; keep one` });
  }
});
export type Implementation = z.infer<typeof Implementation>;

/**
 * What an engineer in agent mode replies once it has edited the worktree with its own tools:
 * the Implementation without `files` and `deleted`. The provider-worker takes both from
 * `git add -A && git diff --cached` in the worktree and completes the Implementation.
 */
export const AgentModeReport = ImplementationFields.omit({ files: true, deleted: true });
export type AgentModeReport = z.infer<typeof AgentModeReport>;
