/**
 * The first sentence of the first non-empty line of a description, cut to `maxLength`
 * characters (counting the trailing `...` when it is cut).
 * @internal
 */
export function oneLineDescription(description: string, maxLength = 160): string {
  const firstLine =
    description
      .split(/\r?\n/)
      .find((line) => line.trim() !== "")
      ?.trim() ?? "";
  const sentenceEnd = firstLine.search(/[.!?](\s|$)/);
  const sentence = sentenceEnd === -1 ? firstLine : firstLine.slice(0, sentenceEnd + 1);
  const characters = [...sentence];
  if (characters.length <= maxLength) return sentence;
  return `${characters
    .slice(0, Math.max(0, maxLength - 3))
    .join("")
    .trimEnd()}...`;
}
