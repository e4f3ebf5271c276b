import * as store from './token-store';

/** A tab's sessionStorage, as the browser's Storage interface. */
class TabStorage implements Storage {
  private readonly items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null;
  }
  removeItem(k: string) {
    this.items.delete(k);
  }
  setItem(k: string, v: string) {
    this.items.set(k, String(v));
  }
}

/** Storage the browser refuses (a private mode, a policy): every call throws. */
const refusing = new Proxy({} as Storage, {
  get: () => () => {
    throw new Error('SecurityError');
  },
});

describe('token-store', () => {
  it('keeps the token for the tab, and forgets it', () => {
    const tab = new TabStorage();
    expect(store.readToken(tab)).toBeNull();
    store.writeToken('t0k', tab);
    expect(store.readToken(tab)).toBe('t0k');
    expect(store.readToken(new TabStorage())).toBeNull();
    store.writeToken(null, tab);
    expect(store.readToken(tab)).toBeNull();
  });

  it('remembers "Continue without a token" for the tab (a reload does not ask again), and not for another tab', () => {
    const tab = new TabStorage();
    expect(store.readWithoutToken(tab)).toBe(false);
    store.writeWithoutToken(true, tab);
    expect(store.readWithoutToken(tab)).toBe(true);
    expect(store.readWithoutToken(new TabStorage())).toBe(false);
    store.writeWithoutToken(false, tab);
    expect(store.readWithoutToken(tab)).toBe(false);
    expect(tab.length).toBe(0);
  });

  it('with storage refused, remembers nothing and throws nothing (the screen asks each time)', () => {
    expect(() => store.writeWithoutToken(true, refusing)).not.toThrow();
    expect(store.readWithoutToken(refusing)).toBe(false);
    expect(() => store.writeToken('t0k', refusing)).not.toThrow();
    expect(store.readToken(refusing)).toBeNull();
  });
});
