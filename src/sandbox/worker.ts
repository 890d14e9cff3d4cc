// Entry of the disposable sandbox worker process (`node --no-node-snapshot worker.js`): holds the isolates.
import { startIsolateRun, type ActiveRun } from './isolate-run.js';
import { loadOrReport } from './load-ivm.js';
import type { HostMessage, WorkerMessage } from './protocol.js';

const ivm = loadOrReport();

let active: ActiveRun | null = null;

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
        run = startIsolateRun(ivm, message, send);
      } catch (err) {
        const detail = `the isolate could not be created: ${err instanceof Error ? err.message : String(err)}`;
        send({ type: 'done', runId: message.runId, outcome: { ok: false, kind: 'crash', detail }, healthy: false, rssMb: 0 });
        return;
      }
      active = run;
      void run.finished.then((done) => {
        active = null;
        send(done);
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
