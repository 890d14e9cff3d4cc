// What was derived from a file, kept until the file changes: its version from stat, and a bounded map by path.
import type { BigIntStats } from 'node:fs';

/** A file's version as stat (with `bigint: true`) saw it: another inode, size or modification time means it changed. */
export function fileVersion(info: BigIntStats): string {
  return `${info.ino}:${info.size}:${info.mtimeNs}`;
}

/** Values by key, each with the version it was made from; at most `max` (all dropped when full: it only stops a strange caller). */
export class KeptByVersion<T> {
  private readonly kept = new Map<string, { version: string; value: T }>();

  constructor(private readonly max: number) {}

  /** The value kept for `key`, if it was made from `version`. */
  get(key: string, version: string): T | undefined {
    const kept = this.kept.get(key);
    return kept?.version === version ? kept.value : undefined;
  }

  set(key: string, version: string, value: T): void {
    if (!this.kept.has(key) && this.kept.size >= this.max) this.kept.clear();
    this.kept.set(key, { version, value });
  }

  delete(key: string): void {
    this.kept.delete(key);
  }
}
