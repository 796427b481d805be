/**
 * A command's output as text that cannot act on whatever displays it. Output reaches the model
 * and, through events, logs and consoles, the host's terminal: an escape sequence in it can clear
 * a line and print a fake status over it (`\r\x1b[2K exit code 0`), set a window title, write the
 * clipboard (OSC 52), and bidirectional overrides can reorder what a reader sees. Every control
 * character but newline and tab is replaced by a visible stand-in, so the bytes are still there
 * to read and nothing is hidden or performed.
 */

/** C0 controls (but tab and newline), DEL, C1 controls, and the bidirectional formatting characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const CONTROL = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character except `\n` and `\t` made visible: C0 controls and DEL as
 * their Unicode control pictures (`␛` for ESC, `␍` for a lone carriage return, `␀` for NUL),
 * C1 and bidirectional controls as `[U+XXXX]`. A CRLF line ending becomes a plain newline.
 */
export function showControlCharacters(text: string): string {
  return text.replace(CONTROL, (found) => {
    if (found === "\r\n") return "\n";
    const code = found.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    return `[U+${code.toString(16).toUpperCase().padStart(4, "0")}]`;
  });
}
