import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { runTabPath, type RunTab } from '../lib/route';
import { useApp } from './app-context';

export interface TabEntry {
  id: RunTab;
  label: string;
}

const tabId = (id: RunTab) => `run-tab-${id}`;
const panelId = (id: RunTab) => `run-tabpanel-${id}`;

/**
 * The run page's tabs (the WAI-ARIA tabs pattern): each a link to its own path, so a reload or a
 * shared URL opens it; the arrow keys, Home and End move between them and open the one reached.
 */
export function RunTabs({ runId, tabs, current }: { runId: string; tabs: readonly TabEntry[]; current: RunTab }) {
  const { navigate } = useApp();
  const refs = useRef(new Map<RunTab, HTMLAnchorElement>());
  // A key moved the selection: focus follows it once the new tab is the selected one.
  const focusSelected = useRef(false);
  useEffect(() => {
    if (!focusSelected.current) return;
    focusSelected.current = false;
    refs.current.get(current)?.focus();
  }, [current]);
  const go = (id: RunTab, focus: boolean) => {
    focusSelected.current = focus;
    navigate(runTabPath(runId, id), { keepFocus: true });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLAnchorElement>) => {
    const i = tabs.findIndex((t) => t.id === current);
    const next = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    go(tabs[(next + tabs.length) % tabs.length].id, true);
  };
  return (
    <div role="tablist" aria-label="Run" className="tabs">
      {tabs.map((t) => {
        const selected = t.id === current;
        return (
          <a
            key={t.id}
            ref={(el) => {
              if (el) refs.current.set(t.id, el);
              else refs.current.delete(t.id);
            }}
            role="tab"
            id={tabId(t.id)}
            href={runTabPath(runId, t.id)}
            aria-selected={selected}
            aria-controls={panelId(t.id)}
            tabIndex={selected ? 0 : -1}
            className={selected ? 'tab selected' : 'tab'}
            onClick={(e) => {
              if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
              e.preventDefault();
              go(t.id, false);
            }}
            onKeyDown={onKeyDown}
          >
            {t.label}
          </a>
        );
      })}
    </div>
  );
}

/** The open tab's content, named by its tab. */
export function RunTabPanel({ id, children }: { id: RunTab; children: ReactNode }) {
  return (
    <div role="tabpanel" id={panelId(id)} aria-labelledby={tabId(id)} tabIndex={0} className="tabpanel">
      {children}
    </div>
  );
}
