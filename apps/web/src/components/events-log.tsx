import type { RunEventEnvelope } from '@roundtable/contracts';
import { useState } from 'react';
import { eventTypes, filterEnvelopes } from '../lib/run-events';
import { Empty, Section } from './section';

/** The raw envelopes of the run's log as they arrive, oldest first, filtered by the types ticked. */
export function EventsLog({ envelopes }: { envelopes: readonly RunEventEnvelope[] }) {
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const types = eventTypes(envelopes);
  const shown = filterEnvelopes(envelopes, chosen);
  const toggle = (type: string, on: boolean) =>
    setChosen((s) => {
      const next = new Set(s);
      if (on) next.add(type);
      else next.delete(type);
      return next;
    });
  return (
    <Section title="Events">
      {types.length > 0 && (
        <fieldset className="event-types">
          <legend>Show only these types (none ticked: all)</legend>
          {types.map((t) => (
            <label key={t.type}>
              <input type="checkbox" checked={chosen.has(t.type)} onChange={(e) => toggle(t.type, e.currentTarget.checked)} /> <span className="mono">{t.type}</span>{' '}
              <span className="muted">({t.count})</span>
            </label>
          ))}
        </fieldset>
      )}
      <p className="muted" role="status" aria-label="Events shown">
        {shown.length} of {envelopes.length} events
      </p>
      {envelopes.length === 0 ? (
        <Empty>No event yet.</Empty>
      ) : (
        <ol className="events" aria-label="Event envelopes">
          {shown.map((e) => (
            <li key={e.sequence} data-testid="event-row" data-type={e.type}>
              <details>
                <summary>
                  <span className="mono">#{e.sequence}</span> <strong className="mono">{e.type}</strong> <span className="muted">{e.created_at}</span>
                </summary>
                <pre className="code">{JSON.stringify(e, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
