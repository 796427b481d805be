import { describe, expect, it } from "vitest";
import { confinedEnvironment, DEFAULT_PATH, inheritedEnvironment } from "./sandbox-environment.js";

const host = {
  PATH: "/usr/bin:/bin",
  LANG: "C.UTF-8",
  TERM: "xterm",
  HOME: "/home/me",
  SECRET_TOKEN: "t",
  GITHUB_TOKEN: "g",
  AWS_ACCESS_KEY_ID: "a",
  OPENAI_API_KEY: "o",
  SSH_AUTH_SOCK: "/run/ssh.sock",
  NPM_CONFIG_USERCONFIG: "/home/me/.npmrc",
};

describe("confinedEnvironment", () => {
  it("keeps only the safe list, with a private HOME and TMPDIR", () => {
    expect(confinedEnvironment(undefined, { home: "/tmp", hostEnvironment: host })).toEqual({
      PATH: "/usr/bin:/bin",
      LANG: "C.UTF-8",
      TERM: "xterm",
      HOME: "/tmp",
      TMPDIR: "/tmp",
    });
  });

  it("adds explicit variables, which win, and has a PATH even when the host has none", () => {
    const environment = confinedEnvironment({ CI: "1", HOME: "/work" }, { home: "/tmp", hostEnvironment: {} });
    expect(environment).toEqual({ PATH: DEFAULT_PATH, HOME: "/work", TMPDIR: "/tmp", CI: "1" });
  });

  it("does not read inherited properties as variables", () => {
    const inherited = Object.create({ PATH: "/evil" }) as Record<string, string>;
    expect(confinedEnvironment(undefined, { home: "/tmp", hostEnvironment: inherited }).PATH).toBe(DEFAULT_PATH);
  });
});

describe("inheritedEnvironment", () => {
  it("passes the host environment through, plus explicit variables", () => {
    expect(inheritedEnvironment({ EXTRA: "1" }, host)).toEqual({ ...host, EXTRA: "1" });
  });
});
