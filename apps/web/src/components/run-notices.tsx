import type { RunView } from '@roundtable/run-view';

/** The run's halts and warnings, above the tabs. */
export function Notices({ view }: { view: RunView }) {
  const lines = view.notices
    .map((n) => {
      switch (n.kind) {
        case 'provider_fallback':
          return `${n.payload.role} moved from ${n.payload.from} to ${n.payload.to}: ${n.payload.reason}`;
        case 'provider_unserved':
          return `No worker serves ${n.payload.provider} yet (${n.payload.reason}); start ${n.payload.start}.`;
        case 'panel_warning':
          return `Panel warning (${n.payload.kind}): ${n.payload.detail}`;
        default:
          return null; // budget warnings sit in Budget, rejected files in Implementations
      }
    })
    .filter((l): l is string => l !== null);
  if (!lines.length && !view.halts.length) return null;
  return (
    <ul className="notices" aria-label="Notices">
      {view.halts.map((h) => (
        <li key={h.sequence} className="warn">
          Halted: {h.reason}
        </li>
      ))}
      {lines.map((l, i) => (
        <li key={i} className="warn">
          {l}
        </li>
      ))}
    </ul>
  );
}
