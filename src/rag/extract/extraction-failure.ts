// Small pieces of one extraction: its failures in plain words, the placeholder nonce, and what a fetch gave back.
import { randomBytes } from 'node:crypto';
import type { ExtractionLimits, ExtractionResult } from '../types.js';
import type { FetchedBody } from './safe-fetch.js';

export type Failure = Extract<ExtractionResult, { ok: false }>;

/** Marks a file's image placeholders, so text in the file cannot pass for one. */
export function newNonce(): string {
  return randomBytes(6).toString('hex');
}

export function fail(reason: Failure['reason'], message: string): Failure {
  return { ok: false, reason, message };
}

export function timeoutFailure(name: string, limits: ExtractionLimits): Failure {
  return fail('timeout', `${name} took longer than the ${formatSeconds(limits.timeoutMs)} limit to extract; it was skipped.`);
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

export function isFetchedBody(value: unknown): value is FetchedBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = (value as Partial<FetchedBody>).body;
  return typeof body === 'string' || body instanceof Uint8Array;
}
