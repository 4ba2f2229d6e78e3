// gRPC's interop cases in a browser page, as connect-web (connect-es's
// fetch-based transports) runs them against a server of another origin:
// the page's query names the server (`?server=http://127.0.0.1:PORT`).
// Runs the cases over Connect (JSON and binary, GET for the cacheable
// call) and gRPC-Web, then POSTs its report, one line per case ("ok
// PROTOCOL NAME" or "FAIL PROTOCOL NAME: why"), to `/report` on its own
// origin. Browsers cannot stream requests over fetch, so the client- and
// bidi-streaming cases are not here.
import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { interopCases } from "./cases.mjs";

const CASES = [
  "empty_unary",
  "large_unary",
  "cacheable_unary",
  "server_streaming",
  "status_code_and_message",
  "special_status_message",
  "unimplemented_method",
  "unimplemented_service",
  "custom_metadata",
  "timeout_on_sleeping_server",
  "error_details",
];

async function run() {
  const baseUrl = new URL(location.href).searchParams.get("server");
  const set = new Uint8Array(await (await fetch("/interop.pb")).arrayBuffer());
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, set));
  const service = registry.getService("grpc.testing.TestService");
  const transports = {
    "connect-json": createConnectTransport({ baseUrl, useHttpGet: true }),
    "connect-binary": createConnectTransport({ baseUrl, useHttpGet: true, useBinaryFormat: true }),
    grpcweb: createGrpcWebTransport({ baseUrl, useBinaryFormat: true }),
  };
  const lines = [];
  for (const [protocol, transport] of Object.entries(transports)) {
    const cases = interopCases({
      message: (name, init) => create(registry.getMessage(`grpc.testing.${name}`), init),
      schema: (name) => registry.getMessage(`grpc.testing.${name}`),
      client: createClient(service, transport),
      other: createClient(registry.getService("grpc.testing.UnimplementedService"), transport),
    });
    for (const name of CASES) {
      try {
        await cases[name]();
        lines.push(`ok ${protocol} ${name}`);
      } catch (e) {
        lines.push(`FAIL ${protocol} ${name}: ${e.message}`);
      }
    }
  }
  return lines.join("\n");
}

run()
  .catch((e) => `FAIL page: ${e.stack ?? e}`)
  .then((report) => fetch("/report", { method: "POST", body: report }));
