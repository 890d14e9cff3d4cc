// A streamed reply the test releases frame by frame, so it can look at the screen while the model is mid-reply.

export interface HeldStream {
  /** The reply's frames, for a fake server's `frames`. */
  frames: AsyncIterable<string>;
  /** Lets one more frame out. */
  release: () => void;
  /** Frames sent so far. */
  sent: () => number;
}

export function heldStream(all: string[]): HeldStream {
  let released = 0;
  let sent = 0;
  let wake: (() => void) | undefined;
  return {
    sent: () => sent,
    release: () => {
      released++;
      wake?.();
    },
    frames: (async function* () {
      for (const frame of all) {
        while (released <= sent) await new Promise<void>((resolve) => (wake = resolve));
        sent++;
        yield frame;
      }
    })(),
  };
}
