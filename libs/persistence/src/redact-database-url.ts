/** A database URL fit for logs and error messages: the password never leaves the process. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // A URL listing several hosts (a Redis Cluster's, Sentinel's) is no WHATWG URL: its password
    // is what sits between the user's colon and the last @ before the hosts.
    const listed = /^([a-z][a-z0-9+.-]*:\/\/)([^/@:]*):[^/]*@([^@/]*)(.*)$/i.exec(url);
    if (listed) return `${listed[1]}${listed[2]}:***@${listed[3]}${listed[4]}`;
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/@]*(\/|$)/i.test(url)) return url; // no credentials in it
    // An unparseable URL may still hold a password somewhere; show nothing of it.
    return '<unparseable database url>';
  }
}
