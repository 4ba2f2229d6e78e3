// Validates messages with Buf's protovalidate for TypeScript (on
// @bufbuild/cel), for fastrs's differential tests.
//
// Usage: node validate.mjs SET INPUT OUTPUT. SET is an encoded
// FileDescriptorSet; each line of INPUT is a message type's full name, a
// tab, and the message's encoding in base64. Each line of OUTPUT answers
// the line of INPUT with a JSON object: {"valid": true}, {"violations":
// [base64 of each buf.validate.Violation]}, or {"error": "..."}.
import { readFileSync, writeFileSync } from "node:fs";
import { createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createValidator, violationToProto } from "@bufbuild/protovalidate";

const [setPath, inputPath, outputPath] = process.argv.slice(2);
const set = fromBinary(FileDescriptorSetSchema, readFileSync(setPath));
const registry = createFileRegistry(set);
const validator = createValidator({ registry });
const out = [];
for (const line of readFileSync(inputPath, "utf8").split("\n")) {
  if (line === "") continue;
  const [name, data] = line.split("\t");
  let answer;
  try {
    const desc = registry.getMessage(name);
    const message = fromBinary(desc, Buffer.from(data, "base64"));
    const result = validator.validate(desc, message);
    if (result.kind === "valid") {
      answer = { valid: true };
    } else if (result.kind === "invalid") {
      answer = {
        violations: result.violations.map((v) => {
          const [proto, schema] = violationToProto(v);
          return Buffer.from(toBinary(schema, proto)).toString("base64");
        }),
      };
    } else {
      answer = { error: `${result.error.name}: ${result.error.message}` };
    }
  } catch (e) {
    answer = { error: `${e.name}: ${e.message}` };
  }
  out.push(JSON.stringify(answer));
}
writeFileSync(outputPath, out.join("\n") + "\n");
