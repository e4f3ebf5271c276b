import type { IdeaDetail } from '../lib/api-types';
import { Link } from './link';
import { Section } from './section';

type Memory = IdeaDetail['memory'][number];

const scoresText = (m: Memory): string =>
  Object.entries(m.scores)
    .map(([judge, score]) => `${judge} ${score}`)
    .join(', ');

/**
 * The idea's memory (issue 23): each done panel on it as the summary the next panel is shown —
 * verdict, the judges' final scores, the top risks and what changed in the worksheet since the
 * panel before — newest first. Never a transcript: the run's page has that.
 */
export function IdeaMemory({ memory }: { memory: readonly Memory[] }) {
  return (
    <Section title="Memory">
      {memory.length === 0 ? (
        <p className="muted">No panel on this idea has ended yet. Each one that does is remembered here, and the next panel is shown these summaries, never a transcript.</p>
      ) : (
        <ol className="idea-memory">
          {memory.map((m) => (
            <li key={m.run_id} data-testid="idea-memory">
              <strong>{m.recommendation}</strong> (confidence {m.confidence}) — <Link to={`/runs/${encodeURIComponent(m.run_id)}`} className="mono">{m.run_id}</Link>
              {m.version !== null && <> on version {m.version}</>}
              <div className="muted small">Scores: {scoresText(m) || 'none'}</div>
              <div className="small">Top risks: {m.top_risks.length ? m.top_risks.join('; ') : 'none named'}</div>
              <div className="small">Changed since the panel before: {m.changed.length ? m.changed.join(', ') : 'nothing (or the first panel)'}</div>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
