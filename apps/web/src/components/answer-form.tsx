import { useState, type FormEvent } from 'react';
import { useApp } from './app-context';
import { actError, Outcome } from './act-outcome';

/** The answer to one open question of the run (POST /v1/runs/:id/answers), by its id. */
export function AnswerForm({ runId, question, onActed }: { runId: string; question: { id: string; role: string; question: string }; onActed: (said: string) => void }) {
  const { api } = useApp();
  const [answer, setAnswer] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fieldId = `answer-${question.id}`;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Sent as typed: an empty answer is the api's to refuse, with its message naming the field.
      await api.answer(runId, { question_id: question.id, answer: answer.trim() });
      setAnswer('');
      onActed(`Answer to ${question.id} sent: the run goes on with it.`);
    } catch (err) {
      setError(actError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="act-form" aria-label={`Answer ${question.id}`}>
      <p>
        <strong>{question.id}</strong> <span className="muted">from the {question.role}</span>
      </p>
      <p className="prose">{question.question}</p>
      <div className="field">
        <label htmlFor={fieldId}>Your answer</label>
        <textarea id={fieldId} rows={3} value={answer} onChange={(e) => setAnswer(e.target.value)} />
      </div>
      <button type="submit" disabled={busy}>
        Send
      </button>
      <Outcome error={error} />
    </form>
  );
}
