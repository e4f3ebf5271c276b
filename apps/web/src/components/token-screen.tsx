import { useState, type FormEvent } from 'react';

/**
 * Asks for the API token (kept in sessionStorage for this tab). Shown with no token, and again
 * after any 401, saying the token was refused. An api with no tokens configured (`open`) lets the
 * user go on without one.
 */
export function TokenScreen({ refused, openApi, onToken, onOpen }: { refused: string | null; openApi: boolean; onToken: (t: string) => void; onOpen: () => void }) {
  const [value, setValue] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) onToken(value.trim());
  };
  return (
    <main className="token-screen" id="main">
      <h1>Roundtable workbench</h1>
      <form onSubmit={submit} className="card">
        {refused && (
          <p role="alert" className="error">
            {refused}
          </p>
        )}
        <label htmlFor="api-token">API token</label>
        <input id="api-token" name="token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} aria-describedby="api-token-help" autoFocus />
        <p id="api-token-help" className="muted">
          One of this deployment&apos;s API_TOKENS. It stays in this tab only (sessionStorage) and is sent as a bearer token with every request.
        </p>
        <div className="actions">
          <button type="submit" disabled={!value.trim()}>
            Use token
          </button>
          {openApi && (
            <button type="button" className="secondary" onClick={onOpen}>
              Continue without a token
            </button>
          )}
        </div>
        {openApi && <p className="muted">This api has no tokens configured: anyone may read and act.</p>}
      </form>
    </main>
  );
}
