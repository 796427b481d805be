/**
 * How the patch engine sees the workspace: one read-only method, so the engine stays pure and the
 * tool layer decides about confinement, encodings and binary files. Paths arrive normalised and
 * relative to the workspace root. A read that throws (an I/O error) ends the plan with that
 * exception; it is not a mistake of the model.
 */
export interface FileReader {
  /** The file's current content as text, or `undefined` when it does not exist. Called at most once per path and plan. */
  read(path: string): Promise<string | undefined>;
  /**
   * The file's bytes, with the same refusals as {@link FileReader.read}, or `undefined` when it does not exist.
   * When given, the engine reads through it and patches the bytes (see `FileContent`).
   */
  readBytes?(path: string): Promise<Buffer | undefined>;
}
