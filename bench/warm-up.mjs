// How long the throughput rounds' clients loop before their calls count: a long-lived client is
// warm (its JavaScript compiled, its connection's buffers grown), and over the first seconds the
// clients' own calls speed up several times (docs/benchmarks.md, "The floor's clients warm up").
// Every server of a round is loaded the same way through the same warm-up.
export const WARM_MS = 5_000;
