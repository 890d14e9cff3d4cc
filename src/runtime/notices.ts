// Where the core says what a person should know (a model chosen, a server down, a warning): the caller decides how to show it.

/** The CLI's Output fits it; the core never prints itself. */
export interface Notices {
  /** Progress or diagnostics a person may skip (shown unless quiet). */
  info(text: string): void;
  /** Warnings and notes a person must see. */
  error(text: string): void;
  /** Whether details (standing instructions read, …) are wanted. */
  readonly verbose: boolean;
}
