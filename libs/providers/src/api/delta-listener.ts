/**
 * The request's onDelta as an adapter calls it: empty pieces are not passed on, and a listener
 * that throws is ignored — it only previews the reply, so it must never fail (or change) the
 * call whose Completion is the truth.
 */
export function safeDelta(onDelta: (text: string) => void): (text: string) => void {
  return (text) => {
    if (!text) return;
    try {
      onDelta(text);
    } catch {
      // a preview listener's failure is not the call's
    }
  };
}
