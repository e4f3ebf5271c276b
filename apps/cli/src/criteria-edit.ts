import { parse as parseYaml } from 'yaml';
import { UsageError } from './cli-args';

/**
 * `approve --edit FILE` at the criteria gate: the criteria as the approver wants them. The file
 * is either a list (YAML or JSON) of `{ id?, text }` or of plain strings, or text with one
 * criterion per line, `AC2: text` keeping a locked criterion's id (reworded if the text
 * changed) and a line without an id adding a new one. A locked id left out is dropped.
 */
export interface CriterionEdit {
  id?: string;
  text: string;
}

const ID_LINE = /^(AC\d+)\s*[:.)-]\s*(.+)$/;

export function parseCriteriaEdit(text: string, file: string): CriterionEdit[] {
  const fail = (why: string) => new UsageError(`--edit ${file}: ${why}`, 'approve');
  let parsed: unknown = null;
  try {
    parsed = parseYaml(text);
  } catch {
    parsed = null;
  }
  const entries: CriterionEdit[] = Array.isArray(parsed)
    ? parsed.map((e, i) => {
        if (typeof e === 'string') return fromLine(e);
        if (e && typeof e === 'object' && typeof (e as { text?: unknown }).text === 'string') {
          const { id, text: t } = e as { id?: unknown; text: string };
          if (id !== undefined && (typeof id !== 'string' || !/^AC\d+$/.test(id))) throw fail(`entry ${i + 1}: id is a locked criterion id such as AC2, or left out for a new one`);
          return id ? { id, text: t.trim() } : { text: t.trim() };
        }
        throw fail(`entry ${i + 1} is neither a criterion's text nor { id?, text }`);
      })
    : text
        .split('\n')
        .map((l) => l.replace(/^\s*[-*]\s+/, '').trim())
        .filter((l) => l && !l.startsWith('#'))
        .map(fromLine);
  const empty = entries.findIndex((e) => !e.text);
  if (empty >= 0) throw fail(`criterion ${empty + 1} has no text`);
  if (!entries.length) throw fail('it lists no criterion; refuse the gate (roundtable reject) to stop the run instead');
  return entries;
}

function fromLine(line: string): CriterionEdit {
  const m = ID_LINE.exec(line.trim());
  return m ? { id: m[1], text: m[2].trim() } : { text: line.trim() };
}
