import type { ReactNode } from 'react';

/** A titled list of strings, or nothing when it is empty. */
export function Items({ title, items }: { title: string; items: readonly string[] | undefined }) {
  if (!items?.length) return null;
  return (
    <div className="items">
      <h4>{title}</h4>
      <ul>
        {items.map((it, i) => (
          <li key={i}>{it}</li>
        ))}
      </ul>
    </div>
  );
}

export function Pair({ children }: { children: ReactNode }) {
  return <div className="pair">{children}</div>;
}

export function VerdictBadge({ verdict }: { verdict: string | null | undefined }) {
  if (!verdict) return null;
  return <span className={`badge verdict-${verdict.toLowerCase()}`}>{verdict}</span>;
}
