import { z } from 'zod';

/**
 * Why a model-chosen path is unsafe, or null when it is a plain relative path.
 * The test-runner checks symlinks on disk as well; this is the check that needs no disk.
 */
export function unsafePathReason(p: string): string | null {
  // JSON-quoted so a NUL byte or backslash shows up escaped, the way the model wrote it.
  const shown = JSON.stringify(p);
  if (p.trim() === '') return `path ${shown} is empty`;
  if (p.includes('\0')) return `${shown} contains a NUL byte`;
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
