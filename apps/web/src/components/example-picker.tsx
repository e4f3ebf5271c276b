import type { ExampleProject } from '../lib/api-types';
import { useApp } from './app-context';
import { useAsync } from './use-async';

/**
 * The shipped examples, one click from New run (GET /v1/examples): each loads its project file
 * into the editor as the api will take it, cassettes already pointing where the operator keeps them.
 */
export function ExamplePicker({ onPick }: { onPick: (example: ExampleProject) => void }) {
  const { api } = useApp();
  const examples = useAsync(() => api.examples(), 'examples');
  if (examples.state !== 'ok' || examples.value.length === 0) return null;
  return (
    <section className="examples" aria-labelledby="examples-heading">
      <h2 id="examples-heading">Start from an example</h2>
      <ul className="example-list">
        {examples.value.map((e) => (
          <li key={e.name}>
            <button type="button" onClick={() => onPick(e)} aria-describedby={`example-${e.name}`}>
              {e.name} <span className="muted">({e.workflow})</span>
            </button>
            <p id={`example-${e.name}`} className="muted small">
              {e.summary}
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
