// Entry of the disposable sandbox worker process (`node --no-node-snapshot worker.js`): holds the isolates.
import { disposeQuietly, freshIsolate, startIsolateRun, type ActiveRun, type FreshIsolate } from './isolate-run.js';
import { resolveLimits } from './limits.js';
import { loadOrReport } from './load-ivm.js';
import type { HostMessage, WorkerMessage } from './protocol.js';

const ivm = loadOrReport();

let active: ActiveRun | null = null;
/**
 * The isolate the next run gets, made while this worker waits for it (with the last run's memory limit), so making
 * it is off the next run's path. Nothing runs in it before that run; a run with another limit gets a new one.
 */
let spare: FreshIsolate | null = null;

/** The spare isolate when it fits a run of `memoryMb`, else a new one. @throws when isolated-vm cannot make one. */
function isolateFor(memoryMb: number): FreshIsolate {
  const ready = spare;
  spare = null;
  if (ready && ready.memoryMb === memoryMb && !ready.isolate.isDisposed) return ready;
  if (ready) disposeQuietly(ready.isolate);
  return freshIsolate(ivm, memoryMb);
}

/** Makes the spare isolate once the event loop is free (the `done` just sent goes out first). */
function prepareSpare(memoryMb: number): void {
  setImmediate(() => {
    if (active || spare) return;
    try {
      spare = freshIsolate(ivm, memoryMb);
    } catch {
      // The next run makes its own and reports why it could not.
    }
  });
}

function send(message: WorkerMessage): void {
  // The channel closes when the host goes away; the 'disconnect' handler below ends this process.
  if (process.connected) process.send?.(message);
}

function onMessage(message: HostMessage): void {
  switch (message.type) {
    case 'run': {
      if (active) {
        send({ type: 'done', runId: message.runId, outcome: { ok: false, kind: 'crash', detail: 'the worker was busy' }, healthy: false, rssMb: 0 });
        return;
      }
      let run: ActiveRun;
      try {
        run = startIsolateRun(ivm, message, send, isolateFor(message.memoryMb));
      } catch (err) {
        const detail = `the isolate could not be created: ${err instanceof Error ? err.message : String(err)}`;
        send({ type: 'done', runId: message.runId, outcome: { ok: false, kind: 'crash', detail }, healthy: false, rssMb: 0 });
        return;
      }
      active = run;
      void run.finished.then((done) => {
        active = null;
        send(done);
        // A worker whose isolate did not stop is replaced by the host: no spare for it.
        if (done.healthy) prepareSpare(message.memoryMb);
      });
      return;
    }
    case 'toolReply':
      if (active?.runId === message.runId) active.deliver(message.callId, message.reply);
      return;
    case 'cancel':
      if (active?.runId === message.runId) active.cancel();
      return;
    case 'pauseDeadline':
      if (active?.runId === message.runId) active.pauseDeadline();
      return;
    case 'resumeDeadline':
      if (active?.runId === message.runId) active.resumeDeadline();
      return;
  }
}

process.on('message', (message) => onMessage(message as HostMessage));
// The host owns this process: when it goes, so do we (no orphaned isolates).
process.on('disconnect', () => process.exit(0));
// isolated-vm may reject promises into a disposed isolate; that is expected at the end of a cut-short run.
process.on('unhandledRejection', () => undefined);
// The first run's isolate is made early too, with the default memory limit: the worker starts while the model answers.
prepareSpare(resolveLimits().memoryMb);
