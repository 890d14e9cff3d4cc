// Who has the terminal: while the person is being asked something, progress waits, so nothing draws over the question.

let holds = 0;
const waiting = new Set<() => void>();

/** Holds progress output until the returned function is called (each hold released once; holds nest). */
export function holdProgress(): () => void {
  holds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    if (holds === 0) for (const resume of [...waiting]) resume();
  };
}

/** True while someone is being asked: spinners stay still and lines that stay wait. */
export function progressHeld(): boolean {
  return holds > 0;
}

/** Calls `resume` each time the last hold is released (lines kept meanwhile can then be written). Returns the unsubscribe. */
export function whenReleased(resume: () => void): () => void {
  waiting.add(resume);
  return () => waiting.delete(resume);
}

/** `work` with progress held for its whole length (an elicitation form is several questions and lines). */
export async function withProgressHeld<T>(work: () => Promise<T>): Promise<T> {
  const release = holdProgress();
  try {
    return await work();
  } finally {
    release();
  }
}
