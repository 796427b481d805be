/**
 * A step of a file transaction failed for one file: `path` (as given) says which, so the error
 * told to the model names the file that failed, not the first of the batch.
 */
export class FileStepError extends Error {
  constructor(
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super("file step failed");
  }
}
