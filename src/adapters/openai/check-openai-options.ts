import { ConfigurationError } from "agent-tool-catalog";
import { checkChoiceOption } from "../../errors/check-choice-option.js";

const SWITCHES = ["strict", "allowedToolsChoice", "nativeToolSearch"] as const;

/**
 * Checks the request options of the OpenAI builders. Each value went out unchecked or was read
 * as "off": `allowedToolsMode: "Required"` reached OpenAI, which refuses the whole request, and
 * `strict: "yes"` sent every tool non-strict.
 * @throws ConfigurationError `invalid_option` naming the field, or `conflicting_options` for an
 *   `allowedToolsMode` given with no `allowedToolsChoice` at all (it would be ignored: no
 *   `tool_choice` is sent); `allowedToolsChoice: false` with a mode is accepted (switched off).
 */
export function checkOpenAIOptions(options: object, where: string): void {
  const given = options as Record<string, unknown>;
  for (const field of SWITCHES) {
    const value = given[field];
    if (value !== undefined && typeof value !== "boolean") {
      throw new ConfigurationError("invalid_option", `${where}: ${field} must be true or false; got ${JSON.stringify(value)}.`, {
        data: { field },
      });
    }
  }
  checkChoiceOption(given.allowedToolsMode as string | undefined, "allowedToolsMode", ["auto", "required"], where);
  // Only an absent allowedToolsChoice conflicts: `allowedToolsChoice: flag` with a fixed mode is a
  // host switching the feature off knowingly, and the mode is then rightly unused.
  if (given.allowedToolsMode !== undefined && given.allowedToolsChoice === undefined) {
    throw new ConfigurationError(
      "conflicting_options",
      `${where}: allowedToolsMode takes effect only with allowedToolsChoice: true (it sets tool_choice's mode); without it no tool_choice is sent.`,
      { data: { fields: ["allowedToolsMode", "allowedToolsChoice"] } },
    );
  }
}
