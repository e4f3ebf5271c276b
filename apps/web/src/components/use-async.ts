import { useEffect, useState } from 'react';
import { ApiHttpError } from '../lib/api-client';

export type Async<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'error'; error: ApiHttpError | Error };

/**
 * Fetches when a key changes (a document by id: a call, the records, the diff); keeps the last
 * value while the next loads, so a refetch does not blank the section.
 */
export function useAsync<T>(load: (() => Promise<T>) | null, key: string): Async<T> {
  const [result, setResult] = useState<Async<T>>({ state: 'loading' });
  useEffect(() => {
    if (!load) return;
    let live = true;
    load().then(
      (value) => live && setResult({ state: 'ok', value }),
      (error: unknown) => live && setResult({ state: 'error', error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      live = false;
    };
    // `load` is a new closure each render; the key says when it means something new.
  }, [key]);
  return result;
}

export const errorText = (e: ApiHttpError | Error): string =>
  e instanceof ApiHttpError ? `${e.message}${e.body?.error ? ` (${e.body.error}, ${e.status})` : ` (${e.status})`}` : e.message;
