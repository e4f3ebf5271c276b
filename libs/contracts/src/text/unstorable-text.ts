/**
 * What Postgres text and jsonb cannot hold, though a JS string can: NUL (U+0000) and a lone UTF-16
 * surrogate (half of a character; not text in UTF-8). One definition for the api, which refuses
 * such input with a 400, and the provider-worker, which stores such replies escaped.
 */
export const LONE_SURROGATE_SOURCE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';

/** A fresh global regex matching every NUL and every lone surrogate (global regexes carry state: one per use). */
export const unstorableCharacters = (): RegExp => new RegExp(`\\u0000|${LONE_SURROGATE_SOURCE}`, 'g');
