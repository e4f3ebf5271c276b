/** The tab's API token: sessionStorage, so it lives as long as the tab and no other tab reads it. */
const KEY = 'roundtable.apiToken';

export function readToken(storage: Storage | undefined = globalThis.sessionStorage): string | null {
  try {
    return storage?.getItem(KEY) || null;
  } catch {
    return null; // storage disabled: the token screen asks each time
  }
}

export function writeToken(token: string | null, storage: Storage | undefined = globalThis.sessionStorage): void {
  try {
    if (token) storage?.setItem(KEY, token);
    else storage?.removeItem(KEY);
  } catch {
    // storage disabled: the token lives in memory only
  }
}
