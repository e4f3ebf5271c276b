import type { EvalCellView, EvalDetail } from '../lib/api-types';
import { cellMark, cellRuns, evalMatrix } from '../lib/evals';
import { runPath } from '../lib/route';
import { Link } from './link';
import { Empty } from './section';
import { TableScroll } from './table-scroll';

/**
 * Tasks by configurations: each cell's mark (✓ ✗ … !) and its word, never the colour alone,
 * linked to the run that was scored, or, for a vote, to each of its runs with the chosen one said.
 */
export function EvalMatrix({ detail: d }: { detail: EvalDetail }) {
  if (d.tasks.length === 0 || d.configs.length === 0) return <Empty>No tasks or configurations.</Empty>;
  const rows = evalMatrix(d);
  return (
    <>
      <p className="muted small eval-legend">
        <span aria-hidden="true">✓</span> passed · <span aria-hidden="true">✗</span> failed · <span aria-hidden="true">…</span> running or waiting to be scored · <span aria-hidden="true">!</span> error. Each cell
        links to the run that was scored; a vote lists its runs.
      </p>
      <TableScroll label="Per-task results">
        <table className="eval-table eval-matrix" data-testid="eval-matrix">
          <caption className="visually-hidden">Per-task results: one row per task, one column per configuration</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              {d.configs.map((c) => (
                <th scope="col" key={c.name} className="mono" data-testid="eval-matrix-config">
                  {c.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.task.id} data-testid="eval-matrix-row" data-task={r.task.id}>
                <th scope="row">
                  <span className="mono">{r.task.id}</span> <span className={`badge difficulty-${r.task.difficulty}`}>{r.task.difficulty}</span>
                </th>
                {d.configs.map((c, i) => (
                  <MatrixCell key={c.name} task={r.task.id} config={c.name} cell={r.cells[i]} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}

function MatrixCell({ task, config, cell }: { task: string; config: string; cell: EvalCellView | undefined }) {
  const m = cellMark(cell);
  const runs = cell ? cellRuns(cell) : [];
  const mark = (
    <>
      <span aria-hidden="true" className="cell-mark">
        {m.mark}
      </span>{' '}
      {m.label}
    </>
  );
  // Where a screen reader's links list has no table around it: which cell a link is.
  const where = <span className="visually-hidden">, {task} under {config}</span>;
  return (
    <td className={`eval-cell cell-${m.state}`} data-testid="eval-cell" data-task={task} data-config={config} data-state={m.state} title={cell?.reason ?? undefined}>
      {runs.length === 1 ? (
        <Link to={runPath(runs[0].id)}>
          {mark}
          {where}
        </Link>
      ) : (
        <span>{mark}</span>
      )}
      {runs.length > 1 && (
        <ul className="vote-runs" aria-label={`Runs of ${task} under ${config}`}>
          {runs.map((r) => (
            <li key={r.id}>
              <Link to={runPath(r.id)} className="mono">
                {r.id}
              </Link>
              {r.chosen && <span className="small"> (chosen)</span>}
            </li>
          ))}
        </ul>
      )}
      {cell?.reason && <span className="visually-hidden">: {cell.reason}</span>}
    </td>
  );
}
