// Writes CEL's conformance tests, as @bufbuild/cel-spec ships them, for the
// Rust harness: `cel-spec.json` (one object per test, with its section)
// and `cel-spec.pb` (a FileDescriptorSet of the message types the tests
// use). Usage: node cel-spec.mjs OUT_DIR
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { getTestRegistry } from "@bufbuild/cel-spec/testdata/registry.js";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";

const out = process.argv[2];
const flat = [];
const walk = (suite, path) => {
  for (const t of suite.tests ?? []) {
    flat.push({ section: path, ...t.original, checkedType: t.type });
  }
  for (const s of suite.suites ?? []) {
    walk(s, path ? `${path}/${s.name}` : s.name);
  }
};
walk(tests, "");
writeFileSync(join(out, "cel-spec.json"), JSON.stringify(flat));

const registry = getTestRegistry();
const files = new Map();
const add = (file) => {
  if (files.has(file.name)) return;
  for (const dep of file.dependencies) add(dep);
  files.set(file.name, file.proto);
};
for (const desc of registry) {
  if (desc.file) add(desc.file);
}
const set = create(FileDescriptorSetSchema, { file: [...files.values()] });
writeFileSync(join(out, "cel-spec.pb"), toBinary(FileDescriptorSetSchema, set));
console.log(`${flat.length} tests, ${files.size} files`);
