import { useMemo } from 'react';
import type { EvalDetail } from '../lib/api-types';
import { plotAlt, svgDataUrl } from '../lib/evals';
import { useApp } from './app-context';
import { Empty } from './section';
import { errorText, useAsync } from './use-async';

/**
 * GET /v1/evals/:id/plot.svg, fetched as text with the tab's token (an <img src> to the api could
 * not send it) and shown as an image from a data: URL: the SVG is never put into the page as
 * markup, so nothing in it runs or styles the page. Asked again as cells finish.
 */
export function EvalPlot({ detail }: { detail: EvalDetail }) {
  const { api } = useApp();
  const plot = useAsync(() => api.evalPlot(detail.id), `${detail.id}|${detail.status}|${detail.progress.done}`);
  const src = useMemo(() => (plot.state === 'ok' ? svgDataUrl(plot.value) : null), [plot]);
  if (plot.state === 'loading') return <Empty>Loading the plot…</Empty>;
  if (plot.state === 'error') return <p className="error">Could not load the plot: {errorText(plot.error)}</p>;
  return (
    <figure className="eval-plot">
      <img src={src ?? undefined} alt={plotAlt(detail)} data-testid="eval-plot" />
      <figcaption className="muted small">Each point is a configuration: its pass rate (with the 95 % interval) against what it cost. Higher passes more; further left costs less.</figcaption>
    </figure>
  );
}
