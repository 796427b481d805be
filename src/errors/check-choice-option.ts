import { ConfigurationError } from "./configuration-error.js";

/**
 * Checks an option that names one of a few choices (`engine: "ripgrep"`). An unknown string (a
 * typo, a choice of a newer version) or a non-string would otherwise fall through to a default
 * branch and do something the host never chose.
 * @returns the value (`undefined` stays `undefined`).
 * @throws ConfigurationError `invalid_option` with `data.field` naming the option and
 *   `data.choices` listing the accepted values.
 */
export function checkChoiceOption<Choice extends string>(
  value: Choice | undefined,
  field: string,
  choices: readonly Choice[],
  where: string,
): Choice | undefined {
  if (value === undefined || (typeof value === "string" && choices.includes(value))) return value;
  const shown = typeof value === "string" ? JSON.stringify(value) : typeof value;
  throw new ConfigurationError(
    "invalid_option",
    `${where}: ${field} must be one of ${choices.map((choice) => JSON.stringify(choice)).join(", ")}; got ${shown}.`,
    { data: { field, value: shown, choices: [...choices] } },
  );
}
