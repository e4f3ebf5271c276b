import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiClient, ApiHttpError } from '../lib/api-client';
import type { Me } from '../lib/api-types';
import { routeOf, type Route } from '../lib/route';
import { readToken, readWithoutToken, writeToken, writeWithoutToken } from '../lib/token-store';
import { AppContext } from './app-context';
import { CallPage } from './call-page';
import { ComparePage } from './compare-page';
import { EvalsPage } from './eval-list-page';
import { EvalPage } from './eval-page';
import { ExperimentPage } from './experiment-page';
import { ExperimentsPage } from './experiment-list-page';
import { AuditPage } from './audit-page';
import { IdeaPage } from './idea-page';
import { IdeasPage } from './idea-list-page';
import { Link } from './link';
import { NewRunPage } from './new-run-page';
import { RunPage } from './run-page';
import { NAVIGATED, RunsPage } from './runs-page';
import { TokenScreen } from './token-screen';

const REFUSED = 'The API refused that token (401). Enter a valid token.';

/** Unknown role (an api without /v1/me yet): show the acts and let a 403 say the token is read-only. */
const ASSUMED_ME: Me = { name: null, role: 'write', team: 'default' };

export function App() {
  const [token, setToken] = useState<string | null>(() => readToken());
  // "Continue without a token" taken earlier in this tab (an open api): a reload does not ask again.
  const [open, setOpen] = useState(() => readWithoutToken());
  const [refused, setRefused] = useState<string | null>(null);
  const [openApi, setOpenApi] = useState(false);
  const [me, setMe] = useState<Me | null>(null);
  const [route, setRoute] = useState<Route>(() => routeOf(location.pathname, location.search));
  const tokenRef = useRef(token);
  tokenRef.current = token;

  const onUnauthorized = useCallback(() => {
    writeToken(null);
    writeWithoutToken(false);
    setToken(null);
    setOpen(false);
    setMe(null);
    setRefused(REFUSED);
  }, []);

  const api = useMemo(() => new ApiClient({ token: () => tokenRef.current, onUnauthorized }), [onUnauthorized]);

  const navigate = useCallback((path: string, opts: { keepFocus?: boolean } = {}) => {
    if (path !== location.pathname + location.search) history.pushState(null, '', path);
    setRoute(routeOf(location.pathname, location.search));
    // A page that keeps state in the query (the runs list) rereads it: /runs from /runs?q=… is the whole list.
    window.dispatchEvent(new Event(NAVIGATED));
    if (opts.keepFocus) return;
    window.scrollTo(0, 0);
    // A screen reader hears the new page: focus moves to its main region, as a full load would start there.
    requestAnimationFrame(() => document.getElementById('main')?.focus({ preventScroll: true }));
  }, []);

  useEffect(() => {
    const onPop = () => setRoute(routeOf(location.pathname, location.search));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  // Without a token: ask the api whether it is open (no tokens configured), which the token screen offers to skip.
  useEffect(() => {
    if (token) return;
    let live = true;
    fetch('/v1/me', { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(async (r) => (r.ok ? ((await r.json()) as Me) : null))
      .then((m) => live && setOpenApi(m?.role === 'open'))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [token]);

  const authed = token !== null || open;
  useEffect(() => {
    if (!authed) return;
    let live = true;
    api.me().then(
      (m) => live && setMe(m),
      (e: unknown) => {
        // 401 is handled by onUnauthorized; an api without /v1/me (404) is assumed to allow acts.
        if (live && !(e instanceof ApiHttpError && e.status === 401)) setMe(ASSUMED_ME);
      },
    );
    return () => {
      live = false;
    };
  }, [api, authed, token]);

  const acceptToken = (t: string) => {
    writeToken(t);
    writeWithoutToken(false);
    setRefused(null);
    setToken(t);
  };

  if (!authed) {
    return <TokenScreen refused={refused} openApi={openApi} onToken={acceptToken} onOpen={() => { writeWithoutToken(true); setOpen(true); }} />;
  }

  return (
    <AppContext.Provider value={{ api, me, navigate }}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/runs" className="brand" aria-label="Roundtable workbench home">
          Roundtable
        </Link>
        <nav aria-label="Main">
          <Link to="/runs" aria-current={route.page === 'runs' ? 'page' : undefined}>
            Runs
          </Link>
          <Link to="/new" aria-current={route.page === 'new' ? 'page' : undefined}>
            New run
          </Link>
          <Link to="/ideas" aria-current={route.page === 'ideas' || route.page === 'idea' ? 'page' : undefined}>
            Ideas
          </Link>
          <Link to="/experiments" aria-current={route.page === 'experiments' || route.page === 'experiment' ? 'page' : undefined}>
            Experiments
          </Link>
          <Link to="/evals" aria-current={route.page === 'evals' || route.page === 'eval' ? 'page' : undefined}>
            Evals
          </Link>
          <Link to="/audit" aria-current={route.page === 'audit' ? 'page' : undefined}>
            Audit
          </Link>
        </nav>
        <span className="who muted">{me ? `${me.name ?? 'anonymous'} · ${me.role}` : ''}</span>
        {token && (
          <button type="button" className="secondary small" onClick={() => { writeToken(null); setToken(null); setMe(null); setRefused(null); }}>
            Forget token
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </AppContext.Provider>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'runs':
      return <RunsPage />;
    case 'new':
      return <NewRunPage />;
    case 'run':
      return <RunPage key={route.runId} runId={route.runId} tab={route.tab} />;
    case 'compare':
      return <ComparePage key={`${route.a}|${route.b}`} a={route.a} b={route.b} />;
    case 'ideas':
      return <IdeasPage />;
    case 'idea':
      return <IdeaPage key={route.ideaId} ideaId={route.ideaId} version={route.version} />;
    case 'experiments':
      return <ExperimentsPage />;
    case 'experiment':
      return <ExperimentPage key={route.experimentId} experimentId={route.experimentId} />;
    case 'evals':
      return <EvalsPage />;
    case 'eval':
      return <EvalPage key={route.evalId} evalId={route.evalId} />;
    case 'audit':
      return <AuditPage project={route.project} />;
    case 'call':
      return <CallPage key={`${route.runId}/${route.callId}`} runId={route.runId} callId={route.callId} />;
    case 'not-found':
      return (
        <>
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.path}</code>. <Link to="/runs">See the runs</Link>.
          </p>
        </>
      );
  }
}
