/** `text` as one single-quoted shell word (for the commands the notes give the model to run). */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
