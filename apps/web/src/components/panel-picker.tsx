import type { IdeaDetail } from '../lib/api-types';

/** Which of an idea's done panels a handoff or a drafted experiment starts from: its run, verdict and the version it scored. */
export function PanelPicker({ id, panels, value, onChange }: { id: string; panels: IdeaDetail['memory']; value: string; onChange: (runId: string) => void }) {
  return (
    <div className="field" data-field="panel_run_id">
      <label htmlFor={id}>Panel</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {panels.map((m) => (
          <option key={m.run_id} value={m.run_id}>
            {m.run_id} — {m.recommendation}
            {m.version !== null ? ` on version ${m.version}` : ''}
          </option>
        ))}
      </select>
    </div>
  );
}
