/**
 * A count in words whose noun agrees with it, "1 file" / "2 files" / "0 files", for every
 * model-visible result and message: "1 file(s)" reads as a hedge and "1 lines" as a slip, and
 * the tools said a count three ways before this one wording.
 */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
