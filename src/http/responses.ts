/** A JSON-RPC error as an HTTP response (what MCP clients read from a refused request). */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** How long a POST's event stream may take to end and still be sent as one write. */
const WHOLE_WITHIN_MS = 25;

/**
 * A POST's event stream sent in one write when it ends soon (a tool call answered at once: the
 * usual case), rather than its headers, its event and its end each written apart (each a loopback
 * write costs about as much as the call's SQL). A stream still going on then (a wait that reports
 * progress, a question to the client) goes on as a stream, what was read first ahead.
 */
export async function whenWhole(response: Response): Promise<Response> {
  if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), WHOLE_WITHIN_MS);
  });
  let pending = reader.read();
  try {
    for (;;) {
      const next = await Promise.race([pending, late]);
      if (next === 'late') break;
      if (next.done)
        return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers });
      chunks.push(next.value);
      pending = reader.read();
    }
  } finally {
    clearTimeout(timer);
  }
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
    },
    async pull(controller) {
      const next = await pending;
      if (next.done) controller.close();
      else {
        controller.enqueue(next.value);
        pending = reader.read();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}
