import { useMemo } from 'react';
import { reportHtml } from '../lib/report-html';
import { Empty, Section } from './section';
import { errorText, type Async } from './use-async';

/** The run's report (markdown), once the run has ended. */
export function Report({ report }: { report: Async<string> | null }) {
  const html = useMemo(() => (report?.state === 'ok' ? reportHtml(report.value) : null), [report]);
  return (
    <Section title="Report">
      {report === null ? (
        <Empty>The report is written when the run ends.</Empty>
      ) : report.state === 'loading' ? (
        <Empty>Loading the report…</Empty>
      ) : report.state === 'error' ? (
        <p className="error">Could not load the report: {errorText(report.error)}</p>
      ) : (
        // reportHtml escapes every raw HTML token and unsafe link: model text never becomes markup.
        <div className="report prose" dangerouslySetInnerHTML={{ __html: html ?? '' }} />
      )}
    </Section>
  );
}
