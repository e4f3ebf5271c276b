import type { ReactNode } from 'react';

/**
 * A wide table that scrolls sideways inside its own box, so the page never does (a phone at
 * 390 px). The box is a named, focusable region: a keyboard can scroll it (axe's
 * scrollable-region-focusable), and a screen reader hears what it holds.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
