// Worker-thread entry that runs one parse task and posts its outcome; started (and killed if slow) by parse-in-worker.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { runParseTask, type ParseTask } from './parse-task.js';

parentPort?.postMessage(runParseTask(workerData as ParseTask));
