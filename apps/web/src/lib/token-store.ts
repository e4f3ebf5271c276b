/** The tab's API token, or its choice to go on without one: sessionStorage, so it lives as long as the tab and no other tab reads it. */
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

/** "Continue without a token" on an open api, taken in this tab: kept as the token is, so a reload does not ask again. */
const WITHOUT_TOKEN_KEY = 'roundtable.withoutToken';

export function readWithoutToken(storage: Storage | undefined = globalThis.sessionStorage): boolean {
  try {
    return storage?.getItem(WITHOUT_TOKEN_KEY) === '1';
  } catch {
    return false; // storage disabled: the token screen asks each time
  }
}

export function writeWithoutToken(on: boolean, storage: Storage | undefined = globalThis.sessionStorage): void {
  try {
    if (on) storage?.setItem(WITHOUT_TOKEN_KEY, '1');
    else storage?.removeItem(WITHOUT_TOKEN_KEY);
  } catch {
    // storage disabled: the choice lives in memory only
  }
}
