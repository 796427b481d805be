import { toFileToolError } from "./file-errors.js";

/** Runs a file operation, turning Node's file errors into tool errors that name the path. */
export async function guardedFileOperation<T>(requested: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw toFileToolError(error, requested);
  }
}
