/**
 * A patch updating `a.txt` ("old a" -> "new a") and then `second` ("old b" -> "new b"): the first
 * file is changed before the second is met, so a refusal at the second shows whether the answer's
 * "no file was changed" holds on disk.
 */
export const twoFilePatch = (second: string): string =>
  [
    "*** Begin Patch",
    "*** Update File: a.txt",
    "-old a",
    "+new a",
    `*** Update File: ${second}`,
    "-old b",
    "+new b",
    "*** End Patch",
  ].join("\n");
