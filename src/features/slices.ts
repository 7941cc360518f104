/**
 * Long background work in slices: the work calls the function this returns between its steps,
 * and it lets the event loop serve what waits (a call of a client) once `budgetMs` of work have
 * passed since it last did. A server's one loop stays answering while it rebuilds.
 */
export function slices(budgetMs = 1): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
