import { IsNull, Not, type DataSource } from 'typeorm';
import { RunEntity } from '@roundtable/persistence';
import { findApiWorkflow } from './workflows/api-workflows';

/** What of each idea is searched: every version's worksheet text (values, not its keys). */
const WORKSHEET_TEXT = `concat_ws(' ', v.worksheet->>'title', v.worksheet->>'problem', v.worksheet->>'target_user', v.worksheet->>'solution',
                                 v.worksheet->>'assumptions', v.worksheet->>'open_risks')`;

/** Each idea's panels' summaries as text (recommendation, top risks, recommended experiment), by idea: what its memory holds. */
async function summariesByIdea(ds: DataSource): Promise<Map<string, string>> {
  const runs = await ds.getRepository(RunEntity).find({ where: { ideaId: Not(IsNull()), status: 'done' } });
  const texts = new Map<string, string>();
  for (const run of runs) {
    const verdict = findApiWorkflow(run.workflow)?.verdictOf(run);
    if (!verdict) continue;
    const s = verdict.synthesis;
    const text = [s.overall_recommendation, ...s.top_risks, ...s.top_problems, s.recommended_experiment].join(' ');
    texts.set(run.ideaId!, `${texts.get(run.ideaId!) ?? ''} ${text}`);
  }
  return texts;
}

/**
 * `GET /v1/ideas?similar_to=<id>` (issue 23): the ideas whose worksheets and panel summaries share
 * the most terms with that idea's, best first, by Postgres full-text search — each idea one
 * document (every version's worksheet and its panels' summaries), queried with any of the source
 * document's lexemes and ranked by ts_rank. The source itself is left out; at most `limit`.
 */
export async function similarIdeaIds(ds: DataSource, sourceId: string, limit = 20): Promise<string[]> {
  const summaries = await summariesByIdea(ds);
  const ids = [...summaries.keys()];
  const rows: { id: string }[] = await ds.query(
    `WITH docs AS (
       SELECT i.id, to_tsvector('english', string_agg(${WORKSHEET_TEXT}, ' ') || ' ' || coalesce(max(m.text), '')) AS doc
         FROM ideas i
         JOIN idea_versions v ON v.idea_id = i.id
         LEFT JOIN unnest($2::text[], $3::text[]) AS m(idea_id, text) ON m.idea_id = i.id
        GROUP BY i.id
     ),
     source AS (
       SELECT to_tsquery('english', coalesce(string_agg(quote_literal(lexeme), ' | '), '')) AS q
         FROM docs, unnest(tsvector_to_array(docs.doc)) AS lexeme
        WHERE docs.id = $1
     )
     SELECT d.id FROM docs d, source s
      WHERE d.id <> $1 AND d.doc @@ s.q
      ORDER BY ts_rank(d.doc, s.q) DESC, d.id
      LIMIT $4`,
    [sourceId, ids, ids.map((i) => summaries.get(i)!), limit],
  );
  return rows.map((r) => r.id);
}
