// The unit tests of the site's pure JavaScript helpers (tests/js/, mirroring static/):
// plain node, no DOM, so a helper that reaches for one fails here.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { include: ["tests/js/**/*.test.js"], environment: "node" },
});
