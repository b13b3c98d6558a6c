// Bundles the page into dist/ (app.js, app.css, index.html): what Envoy serves.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const here = new URL("..", import.meta.url).pathname;
mkdirSync(`${here}dist`, { recursive: true });
await build({
  entryPoints: [`${here}src/main.ts`],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: false,
  outfile: `${here}dist/app.js`,
  logLevel: "warning",
});
for (const f of ["index.html", "app.css"]) copyFileSync(`${here}${f}`, `${here}dist/${f}`);
console.log("web: built dist/ (index.html, app.js, app.css)");
