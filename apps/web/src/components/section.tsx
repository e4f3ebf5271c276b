import type { ReactNode } from 'react';

const idOf = (title: string) => `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

/** A page section named by its heading (aria-labelledby), as the DOM contract asks. */
export function Section({ title, children, className }: { title: string; children: ReactNode; className?: string }) {
  const id = idOf(title);
  return (
    <section aria-labelledby={id} className={className ? `card ${className}` : 'card'}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** What a section says while it has nothing yet. */
export const Empty = ({ children }: { children: ReactNode }) => <p className="muted">{children}</p>;
