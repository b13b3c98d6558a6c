// Runs the page's Node tests (test/*.test.mjs): each is bundled with the TypeScript it imports
// into dist/, then run by `node --test`. The pytest suite calls this (tests/e2e/web).
import { build } from "esbuild";
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";

const here = new URL("..", import.meta.url).pathname;
const tests = readdirSync(`${here}test`).filter((f) => f.endsWith(".test.mjs"));
const outs = [];
for (const t of tests) {
  const outfile = `${here}dist/test/${t}`;
  await build({ entryPoints: [`${here}test/${t}`], bundle: true, format: "esm", platform: "node",
    target: "node20", outfile, logLevel: "warning" });
  outs.push(outfile);
}
const run = spawnSync(process.execPath, ["--test", ...outs], { stdio: "inherit" });
process.exit(run.status ?? 1);
