import type { ToolDescriptor } from "./tool-descriptor.js";

const identities = new WeakMap<ToolDescriptor, string>();

/**
 * A short, stable fingerprint of what a tool is to the model: its name, description and input
 * schema (FNV-1a, 64 bits, as hex). Saved activations carry it, so that a name restored from
 * `run.toJSON()` never silently activates a different tool registered later under that name.
 */
export function toolIdentity(descriptor: ToolDescriptor): string {
  const known = identities.get(descriptor);
  if (known !== undefined) return known;
  const text = `${descriptor.name}\u0000${descriptor.description}\u0000${JSON.stringify(descriptor.inputSchema)}`;
  let high = 0xcbf29ce4 >>> 0;
  let low = 0x84222325 >>> 0;
  for (let index = 0; index < text.length; index++) {
    low ^= text.charCodeAt(index);
    // Multiply the 64-bit value by the FNV prime 0x100000001b3 in 32-bit halves.
    const lowProduct = low * 0x1b3;
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (high * 0x1b3 + carry + ((low << 8) >>> 0)) >>> 0;
    low = lowProduct >>> 0;
  }
  const identity = high.toString(16).padStart(8, "0") + low.toString(16).padStart(8, "0");
  identities.set(descriptor, identity);
  return identity;
}
