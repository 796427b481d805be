import { describe, expect, it } from "vitest";
import { detectPatchKind } from "./detect-patch-kind.js";

describe("detectPatchKind", () => {
  it("recognises Codex patches, also ones missing their Begin line", () => {
    expect(detectPatchKind("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch")).toBe("codex");
    expect(detectPatchKind("\n  *** Begin Patch\n")).toBe("codex");
    expect(detectPatchKind("*** Update File: a\n@@\n-x\n+y\n")).toBe("codex");
  });

  it("takes everything else as a unified diff", () => {
    expect(detectPatchKind("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")).toBe("unified");
    expect(detectPatchKind("--- x\n+++ x\n@@ -1 +1 @@\n-*** Begin\n+b\n")).toBe("unified");
  });

  it("answers each text for itself when texts alternate (the last answer is kept)", () => {
    const codex = "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch";
    const unified = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-*** Begin Patch\n+b\n";
    for (let round = 0; round < 3; round++) {
      expect(detectPatchKind(codex)).toBe("codex");
      expect(detectPatchKind(codex)).toBe("codex");
      expect(detectPatchKind(unified)).toBe("unified");
      expect(detectPatchKind(`x${unified}`.slice(1))).toBe("unified");
      expect(detectPatchKind("no marker at all")).toBe("unified");
    }
  });
});
