import path from 'node:path';
import { projectConfigFrom } from '@roundtable/testing';

const PANEL_DEMO = path.resolve(__dirname, '../../../examples/panel-demo/project.yaml');

/**
 * The panel demo's idea (Swapboard) as a worksheet that is ready for a panel: the ideas e2e specs
 * create their ideas from it, so the demo's cassette, whose guards were written for that idea,
 * answers their panels.
 */
export const SWAPBOARD_WORKSHEET = {
  title: 'Swapboard',
  problem: 'Nurses arrange shift swaps in a WhatsApp group per ward and wait for a paper approval.',
  target_user: 'ward nurses and ward managers in NHS hospital trusts',
  solution: "A phone app where nurses on one ward post the shifts they cannot work and claim each other's; the manager approves with one tap.",
  assumptions: ['ward managers will approve swaps in an app'],
  open_risks: ['the roster vendor controls write access'],
  no_evidence_yet: true,
};

/** The panel demo's project file with its idea given by reference to a worksheet version; `cassette` replaces the demo's. */
export function panelOnVersion(id: string, version: number, cassette?: string): Record<string, unknown> {
  const cfg = projectConfigFrom(PANEL_DEMO);
  delete cfg.idea;
  return { ...cfg, idea_ref: { id, version }, ...(cassette ? { providers: { replay: { type: 'replay', cassette } } } : {}) };
}
