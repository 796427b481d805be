/**
 * A glob as the file tools match it: without a leading `./` (any number of them, after a `!`
 * too). Paths are matched relative to the search's start, where `./src/**` matched nothing (in
 * ripgrep, minimatch and the tools alike) though a model writes it meaning `src/**`.
 */
export function withoutLeadingDotSlash(pattern: string): string {
  const negated = pattern.startsWith("!");
  let rest = negated ? pattern.slice(1) : pattern;
  while (rest.startsWith("./") && rest.length > 2) rest = rest.slice(2);
  return negated ? `!${rest}` : rest;
}
