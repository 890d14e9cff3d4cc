// A run's time left, as the sandbox's deadline gives it to the tool proxy: `ms` from now, counting down on the wall clock.
export function runEndsIn(ms: number): () => number {
  const endsAt = performance.now() + ms;
  return () => endsAt - performance.now();
}
