import { z } from 'zod';
import { unsafePathReason } from './implementation.schema';

/** At most this many paths in one request; the project's `file_requests.max_files` may lower it. */
export const MAX_FILES_PER_REQUEST = 20;

const RequestedPath = z.string().superRefine((p, ctx) => {
  const why = unsafePathReason(p);
  if (why) ctx.addIssue({ code: 'custom', message: why });
});

/**
 * "Let me read these first" (issue 4, reading before writing): on an existing repository the
 * critic, engineer and validator see the file tree and may answer with this instead of their
 * artifact. The orchestrator has the test-runner read the files (size-capped, path-checked)
 * and asks the same question again with the files in evidence blocks. Strict, so a reply that
 * is really a Critique with a stray `paths` field is never taken for a request.
 */
export const FilesRequested = z
  .object({
    paths: z.array(RequestedPath).min(1, 'name at least one file').max(MAX_FILES_PER_REQUEST, `ask for at most ${MAX_FILES_PER_REQUEST} files at a time`),
    reason: z.string().optional(),
  })
  .strict();
export type FilesRequested = z.infer<typeof FilesRequested>;

/** A reply that is either the role's artifact or a request for files. The artifact comes first: it wins when both parse. */
export function orFilesRequested<T extends z.ZodType>(artifact: T) {
  return z.union([artifact, FilesRequested]);
}

export function isFilesRequested(value: unknown): value is FilesRequested {
  return FilesRequested.safeParse(value).success;
}
