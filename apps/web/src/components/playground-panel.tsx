import { useEffect, useState, type FormEvent } from 'react';
import { ApiHttpError } from '../lib/api-client';
import type { CallDetail, PlaygroundCall } from '../lib/api-types';
import { fmtCost, fmtDuration, fmtInt } from '../lib/format';
import { canAct, useApp } from './app-context';
import { ScrollPre } from './scroll-pre';
import { Section } from './section';

const json = (v: unknown) => JSON.stringify(v, null, 2);
const finished = (p: PlaygroundCall) => p.status === 'completed' || p.status === 'failed';

/**
 * The call playground (issue 22): the call's prompt, model and provider, editable, asked again
 * as a call of its own — never part of the run's usage, events or report — and each try shown
 * beside the original reply. The operator's policy caps how many a run may have; the api says so.
 */
export function PlaygroundPanel({ c }: { c: CallDetail }) {
  const { api, me } = useApp();
  const [messages, setMessages] = useState(() => c.messages.filter((m) => m.role !== 'tool').map((m) => ({ role: m.role as 'system' | 'user' | 'assistant', content: m.content })));
  const [model, setModel] = useState(c.model);
  const [provider, setProvider] = useState(c.provider);
  const [tries, setTries] = useState<PlaygroundCall[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // The tries so far, polled while one is still being answered.
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const list = await api.playground(c.run_id, c.id);
        if (!live) return;
        setTries(list);
        if (list.some((p) => !finished(p))) timer = setTimeout(load, 800);
      } catch {
        // The list is a convenience: a failed poll leaves what is shown.
      }
    };
    void load();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [api, c.run_id, c.id, tries.length]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const queued = await api.tryInPlayground(c.run_id, c.id, { messages, model, provider });
      setTries((t) => [...t, queued]);
    } catch (err) {
      setError(err instanceof ApiHttpError ? err.message : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Playground">
      <p className="muted">Ask this call again with an edited prompt, model or provider. A try is a call of its own: it is not part of the run's usage, events or report.</p>
      {canAct(me) && (
        <form onSubmit={submit} className="card playground-form">
          {messages.map((m, i) => (
            <div className="field" key={i}>
              <label htmlFor={`pg-message-${i}`}>Message {i + 1} ({m.role})</label>
              <textarea id={`pg-message-${i}`} rows={m.role === 'system' ? 4 : 8} value={m.content} onChange={(e) => setMessages((ms) => ms.map((x, j) => (j === i ? { ...x, content: e.target.value } : x)))} />
            </div>
          ))}
          <div className="field">
            <label htmlFor="pg-provider">Provider</label>
            <input id="pg-provider" value={provider} onChange={(e) => setProvider(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="pg-model">Model</label>
            <input id="pg-model" value={model} onChange={(e) => setModel(e.target.value)} />
          </div>
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
          <div className="actions">
            <button type="submit" disabled={busy}>
              {busy ? 'Asking…' : 'Try again'}
            </button>
          </div>
        </form>
      )}
      {tries.length > 0 && (
        <div className="playground-compare" data-testid="playground-compare">
          <article className="record">
            <h3>Original ({c.provider} / {c.model})</h3>
            <ScrollPre className="code wrap">{c.response_text ?? '(no reply)'}</ScrollPre>
          </article>
          {tries.map((p) => (
            <article key={p.id} className="record" data-testid="playground-try">
              <h3>
                <span className="mono">{p.id.split('-').pop()}</span> ({p.provider} / {p.model}){' '}
                <span className={`badge ${p.status === 'completed' ? (p.valid ? 'good' : 'bad') : p.status === 'failed' ? 'bad' : 'pending'}`}>{p.status === 'completed' ? (p.valid ? 'valid' : 'invalid') : p.status}</span>
              </h3>
              {finished(p) ? (
                <>
                  <ScrollPre className="code wrap">{p.response_text ?? p.error ?? ''}</ScrollPre>
                  {p.parsed !== null && p.valid === false && p.error && <p className="error">{p.error}</p>}
                  <p className="muted small">
                    {fmtInt(p.input_tokens)} in, {fmtInt(p.output_tokens)} out, {fmtCost(p.cost_usd)}, {fmtDuration(p.latency_ms)}; asked by {p.requested_by}
                  </p>
                </>
              ) : (
                <p className="muted">Asking {p.provider}…</p>
              )}
            </article>
          ))}
        </div>
      )}
      {tries.length > 0 && <details><summary>Prompts of the tries</summary>{tries.map((p) => <ScrollPre key={p.id} className="code">{json(p.messages)}</ScrollPre>)}</details>}
    </Section>
  );
}
