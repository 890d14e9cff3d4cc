// Host-side handle on one sandbox worker process: spawn, IPC, exit detection, SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { CATASTROPHIC_MARKER, UNAVAILABLE_MARKER, parseWorkerMessage, type HostMessage, type WorkerMessage } from './protocol.js';

/** Worker stderr kept for error messages (V8 prints its out-of-memory reports there). */
const MAX_STDERR_TAIL_CHARS = 4_000;

/** How a worker process ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The worker reported isolated-vm's catastrophic (out-of-memory) error before it died. */
  catastrophic: boolean;
  /** Why the worker could not load isolated-vm, when that is why it ended. */
  unavailable: string | null;
  stderrTail: string;
}

/** Receives one run's view of its worker: messages, then possibly the exit. */
export interface WorkerListener {
  message(message: WorkerMessage): void;
  exit(exit: WorkerExit): void;
}

/** A running `node --no-node-snapshot worker.js`; dies with the host and never keeps the host alive on its own. */
export class WorkerProcess {
  /** Runs started on this worker, for recycling. */
  runs = 0;
  private stderrTail = '';
  private exitInfo: WorkerExit | null = null;
  private readonly listeners = new Set<WorkerListener>();
  private readonly killOnHostExit = () => this.kill();

  private constructor(private readonly child: ChildProcess) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-MAX_STDERR_TAIL_CHARS);
    });
    child.on('message', (raw) => {
      const message = parseWorkerMessage(raw);
      if (message) for (const l of [...this.listeners]) l.message(message);
    });
    // 'close' comes after stderr is drained, so the catastrophic marker is in the tail by then.
    child.on('close', (code, signal) => this.onExit(code, signal));
    child.on('error', () => {
      if (child.exitCode === null && child.signalCode === null && child.pid === undefined) this.onExit(null, null);
    });
    process.on('exit', this.killOnHostExit);
    // The host's own run timers keep it alive while a run is in flight; an idle worker must not.
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  /** Starts a worker: `node --no-node-snapshot <path>` with an IPC channel and an empty environment (no secrets). */
  static spawn(path: string): WorkerProcess {
    const child = spawn(process.execPath, ['--no-node-snapshot', path], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {},
      serialization: 'json',
    });
    return new WorkerProcess(child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  /** Sends a message; false when the worker is gone (its exit is reported to listeners). */
  send(message: HostMessage): boolean {
    if (!this.alive || !this.child.connected) return false;
    try {
      this.child.send(message, (err) => {
        // A send that fails means the worker is dying; the exit event reports it.
        if (err) this.kill();
      });
      return true;
    } catch {
      return false;
    }
  }

  /** Subscribes to messages and the exit; returns the unsubscribe function. A dead worker reports its exit at once. */
  listen(listener: WorkerListener): () => void {
    if (this.exitInfo) {
      const info = this.exitInfo;
      queueMicrotask(() => listener.exit(info));
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** SIGKILL: the only reliable way to stop a worker whose isolate wedged it. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        this.child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    process.off('exit', this.killOnHostExit);
    this.exitInfo = { code, signal, catastrophic: this.stderrTail.includes(CATASTROPHIC_MARKER), unavailable: unavailableReason(this.stderrTail), stderrTail: this.stderrTail };
    for (const l of [...this.listeners]) l.exit(this.exitInfo);
    this.listeners.clear();
  }
}

/** The reason on a worker's UNAVAILABLE_MARKER line, if it wrote one. */
function unavailableReason(stderr: string): string | null {
  const line = stderr.split('\n').find((l) => l.startsWith(UNAVAILABLE_MARKER));
  return line ? line.slice(UNAVAILABLE_MARKER.length).trim() : null;
}
