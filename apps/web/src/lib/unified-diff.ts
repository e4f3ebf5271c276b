/** One line of a file's diff, by what it does: kept, added, removed, a hunk header, or git's metadata. */
export type DiffLineKind = 'context' | 'add' | 'del' | 'hunk' | 'meta';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export interface FileDiff {
  /** The path as the run left it (the old path for a deleted file). */
  path: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed';
  added: number;
  deleted: number;
  lines: DiffLine[];
}

const unquote = (p: string) => (p.startsWith('"') && p.endsWith('"') ? p.slice(1, -1) : p);
const stripSide = (p: string) => unquote(p).replace(/^[ab]\//, '');

/** Splits `git diff` output (GET /v1/runs/:id/diff) into one entry per file, in order. */
export function splitUnifiedDiff(text: string): FileDiff[] {
  const files: FileDiff[] = [];
  let current: FileDiff | null = null;
  let inHunk = false;
  for (const raw of text.split('\n')) {
    if (raw.startsWith('diff --git ')) {
      const m = /^diff --git (\S+|"[^"]+") (\S+|"[^"]+")$/.exec(raw);
      current = { path: m ? stripSide(m[2]) : raw.slice(11), status: 'modified', added: 0, deleted: 0, lines: [] };
      files.push(current);
      inHunk = false;
      continue;
    }
    if (!current) continue;
    if (!inHunk) {
      if (raw.startsWith('new file mode')) current.status = 'added';
      else if (raw.startsWith('deleted file mode')) current.status = 'deleted';
      else if (raw.startsWith('rename to ')) {
        current.status = 'renamed';
        current.path = raw.slice(10);
      } else if (raw.startsWith('+++ ') && raw !== '+++ /dev/null') current.path = stripSide(raw.slice(4));
      else if (raw.startsWith('--- ') && raw !== '--- /dev/null' && current.status === 'deleted') current.path = stripSide(raw.slice(4));
      if (raw.startsWith('@@')) {
        inHunk = true;
        current.lines.push({ kind: 'hunk', text: raw });
      } else if (raw.startsWith('Binary files')) {
        current.lines.push({ kind: 'meta', text: raw });
      }
      continue;
    }
    if (raw.startsWith('@@')) current.lines.push({ kind: 'hunk', text: raw });
    else if (raw.startsWith('+')) {
      current.added++;
      current.lines.push({ kind: 'add', text: raw });
    } else if (raw.startsWith('-')) {
      current.deleted++;
      current.lines.push({ kind: 'del', text: raw });
    } else if (raw.startsWith('\\')) current.lines.push({ kind: 'meta', text: raw });
    else if (raw.startsWith(' ')) current.lines.push({ kind: 'context', text: raw });
    // An empty line inside a hunk is the split's artefact after the last newline; nothing else is empty.
  }
  return files;
}
