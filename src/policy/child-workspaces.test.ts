import { describe, expect, it } from "vitest";
import { isWorkspaceInside, normalizeWorkspacePath } from "./child-workspaces.js";

describe("child workspaces as text", () => {
  it("resolves . and .. and drops repeated and trailing separators", () => {
    expect(normalizeWorkspacePath("/ws/sub/../..")).toBe("/");
    expect(normalizeWorkspacePath("/ws/./sub//x/")).toBe("/ws/sub/x");
    expect(normalizeWorkspacePath("/../../ws")).toBe("/ws");
    expect(normalizeWorkspacePath("/ws/..hidden")).toBe("/ws/..hidden");
    expect(normalizeWorkspacePath("C:\\ws\\sub\\..\\..\\x")).toBe("C:\\x");
  });

  it("is inside only below a whole segment", () => {
    expect(isWorkspaceInside("/ws/sub", "/ws")).toBe(true);
    expect(isWorkspaceInside("/ws", "/ws")).toBe(true);
    expect(isWorkspaceInside("/ws2", "/ws")).toBe(false);
    expect(isWorkspaceInside("/ws/..hidden", "/ws")).toBe(true);
    expect(isWorkspaceInside("/anything", "/")).toBe(true);
    expect(isWorkspaceInside("C:\\ws\\a", "C:\\ws")).toBe(true);
    expect(isWorkspaceInside("C:\\wsa", "C:\\ws")).toBe(false);
  });
});
