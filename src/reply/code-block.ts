// A block of a model's reply that may be code: fenced or not, its language label, whether it was closed.
/** One candidate block of code in a reply. */
export interface CodeBlock {
  /** The fence's language label, lower-case; '' for none or for unfenced text. */
  label: string;
  code: string;
  /** False when the fence was never closed (a reply cut off mid-block). */
  closed: boolean;
  fenced: boolean;
  /** Text that looks like code follows the closing fence before the next fence (a ``` line splitting the code). */
  codeAfter?: boolean;
}
