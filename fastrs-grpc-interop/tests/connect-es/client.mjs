// gRPC's interop cases, as connect-es (Connect's TypeScript implementation,
// with protobuf-es) runs them against a server, over one protocol:
//
//   node client.mjs SET BASE_URL PROTOCOL CODEC HTTP_VERSION CASE...
//
// SET is an encoded FileDescriptorSet of grpc/testing/test.proto with its
// imports (the client reads the service from it at run time, no generated
// code); PROTOCOL is connect, grpcweb or grpc; CODEC json or binary. Prints
// one line per case, "ok NAME" or "FAIL NAME: why", and exits 1 if any
// case failed.
import { readFileSync } from "node:fs";
import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { compressionGzip, createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { interopCases } from "./cases.mjs";

const [setPath, baseUrl, protocol, codec, httpVersion, ...cases] = process.argv.slice(2);
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(setPath)));
const service = registry.getService("grpc.testing.TestService");

const options = { baseUrl, httpVersion, useBinaryFormat: codec === "binary" };
const transport =
  protocol === "connect" ? createConnectTransport({ ...options, useHttpGet: true })
  : protocol === "grpcweb" ? createGrpcWebTransport(options)
  : createGrpcTransport(options);
const CASES = interopCases({
  message: (name, init) => create(registry.getMessage(`grpc.testing.${name}`), init),
  schema: (name) => registry.getMessage(`grpc.testing.${name}`),
  client: createClient(service, transport),
  // Every message of 1 KiB or more gzipped, both ways (Connect only).
  gzipped: createClient(
    service,
    createConnectTransport({ ...options, sendCompression: compressionGzip, acceptCompression: [compressionGzip], compressMinBytes: 1024 }),
  ),
  other: createClient(registry.getService("grpc.testing.UnimplementedService"), transport),
});

let failed = false;
for (const name of cases) {
  try {
    await CASES[name]();
    console.log(`ok ${name}`);
  } catch (e) {
    failed = true;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}
process.exit(failed ? 1 : 0);
