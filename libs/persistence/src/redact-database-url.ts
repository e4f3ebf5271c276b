/** A database URL fit for logs and error messages: the password never leaves the process. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // An unparseable URL may still hold a password somewhere; show nothing of it.
    return '<unparseable database url>';
  }
}
