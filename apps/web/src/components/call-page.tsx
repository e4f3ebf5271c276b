import type { ReactNode } from 'react';
import type { CallDetail } from '../lib/api-types';
import { fmtCost, fmtDuration, fmtInt } from '../lib/format';
import { callPath, runPath } from '../lib/route';
import { useApp } from './app-context';
import { Link } from './link';
import { Empty, Section } from './section';
import { errorText, useAsync } from './use-async';
import { ScrollPre } from './scroll-pre';
import { PlaygroundPanel } from './playground-panel';

const json = (v: unknown) => JSON.stringify(v, null, 2);

function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function CallBody({ c }: { c: CallDetail }) {
  const tokens = c.input_tokens === null && c.output_tokens === null ? null : (c.input_tokens ?? 0) + (c.output_tokens ?? 0);
  return (
    <>
      <dl className="run-facts">
        <Fact name="Stage">{c.stage}</Fact>
        <Fact name="Role">{c.role}</Fact>
        <Fact name="Provider / model">
          {c.provider} / <span className="mono">{c.model}</span>
        </Fact>
        <Fact name="Status">
          <span className={`badge ${c.status === 'completed' && c.valid !== false ? 'good' : c.status === 'failed' || c.valid === false ? 'bad' : ''}`}>{c.status}</span>
        </Fact>
        <Fact name="Schema">{c.schema_name ?? '—'}</Fact>
      </dl>
      <Section title="Messages">
        {c.messages.length === 0 && <Empty>No messages recorded.</Empty>}
        {c.messages.map((m, i) => (
          <article key={i} data-testid="message" className={`message role-${m.role}`}>
            <h3 className="message-role">{m.role === 'tool' ? `tool result: ${m.toolName ?? ''} (${m.toolCallId ?? ''})` : m.role}</h3>
            {m.content && <ScrollPre className="code wrap">{m.content}</ScrollPre>}
            {m.toolCalls?.map((t) => (
              <ScrollPre key={t.id} className="code wrap" data-testid="tool-call">
                {`${t.name} (${t.id}) ${json(t.arguments)}`}
              </ScrollPre>
            ))}
          </article>
        ))}
      </Section>
      <Section title="Reply">{c.response_text === null ? <Empty>No reply (the call failed or is still running).</Empty> : <ScrollPre className="code wrap">{c.response_text}</ScrollPre>}</Section>
      <Section title="Parsed">{c.parsed === null || c.parsed === undefined ? <Empty>Nothing parsed.</Empty> : <ScrollPre className="code">{json(c.parsed)}</ScrollPre>}</Section>
      <Section title="Schema">
        {c.schema ? (
          <details open>
            <summary>
              JSON Schema of <span className="mono">{c.schema_name}</span>
            </summary>
            <ScrollPre className="code">{json(c.schema)}</ScrollPre>
          </details>
        ) : (
          <Empty>{c.schema_name ? `No JSON Schema known for ${c.schema_name}.` : 'This call had no schema.'}</Empty>
        )}
      </Section>
      <Section title="Validation">
        <p>
          {c.valid === null ? 'Not validated' : c.valid ? <span className="badge good">valid</span> : <span className="badge bad">invalid</span>}
          {c.error_code && <span className="mono"> {c.error_code}</span>}
        </p>
        {c.error && <ScrollPre className="code wrap error-box">{c.error}</ScrollPre>}
        {c.repair_of && (
          <p>
            A repair of <Link to={callPath(c.run_id, c.repair_of)}>{c.repair_of}</Link>: the reply that failed validation, sent back with its error.
          </p>
        )}
        {c.retry_of && (
          <p>
            A retry of <Link to={callPath(c.run_id, c.retry_of)}>{c.retry_of}</Link> after a transient failure.
          </p>
        )}
      </Section>
      <Section title="Usage">
        <dl className="run-facts">
          <Fact name="Input tokens">{fmtInt(c.input_tokens)}</Fact>
          <Fact name="Output tokens">{fmtInt(c.output_tokens)}</Fact>
          <Fact name="Cached input tokens">{fmtInt(c.cached_input_tokens)}</Fact>
          <Fact name="Tokens">{fmtInt(tokens)}</Fact>
          <Fact name="Cost">{fmtCost(c.cost_usd)}</Fact>
          <Fact name="Cost source">{c.cost_source ?? (c.cost_usd === null ? 'unpriced' : '—')}</Fact>
          <Fact name="Latency">{fmtDuration(c.latency_ms)}</Fact>
          <Fact name="Retries">{c.retry}</Fact>
          <Fact name="Attempt">{c.attempt}</Fact>
          <Fact name="Billing">{c.billing ?? '—'}</Fact>
          <Fact name="Request id">{c.request_id ? <span className="mono">{c.request_id}</span> : '—'}</Fact>
          <Fact name="Max tokens / temperature / timeout">
            {fmtInt(c.max_tokens)} / {c.temperature ?? '—'} / {fmtDuration(c.timeout_ms)}
          </Fact>
        </dl>
      </Section>
      {c.argv && (
        <Section title="Argv">
          <ScrollPre className="code wrap">{c.argv.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')}</ScrollPre>
        </Section>
      )}
    </>
  );
}

/** One agent call as recorded (GET /v1/runs/:id/calls/:callId): the exact prompt, the reply and what was made of it. */
export function CallPage({ runId, callId }: { runId: string; callId: string }) {
  const { api } = useApp();
  const call = useAsync(() => api.call(runId, callId), `${runId}/${callId}`);
  const c = call.state === 'ok' ? call.value : null;
  return (
    <div className="call-page">
      <p className="crumbs">
        <Link to="/runs">Runs</Link> / <Link to={runPath(runId)} className="mono">{runId}</Link> / <span className="mono">{callId}</span>
      </p>
      <h1>
        Call {c ? (c.label ?? c.role) : <span className="mono">{callId}</span>}
        {c?.label && <span className="muted"> ({c.role})</span>}
      </h1>
      {call.state === 'loading' && <p className="muted">Loading the call…</p>}
      {call.state === 'error' && (
        <p role="alert" className="error">
          Could not load the call: {errorText(call.error)}
        </p>
      )}
      {c && <CallBody c={c} />}
      {c && <PlaygroundPanel c={c} />}
    </div>
  );
}
