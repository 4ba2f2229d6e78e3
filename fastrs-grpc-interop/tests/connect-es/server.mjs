// gRPC's interop TestService, served by connect-node (connect-es's server)
// for fastrs's Connect client to call:
//
//   node server.mjs SET HTTP_VERSION
//
// SET is an encoded FileDescriptorSet of grpc/testing/test.proto with its
// imports (the service is read from it at run time, no generated code);
// HTTP_VERSION is 1.1 or 2 (cleartext, prior knowledge). Prints
// "listening on 127.0.0.1:PORT" once it listens, on a free port.
import { readFileSync } from "node:fs";
import * as http from "node:http";
import * as http2 from "node:http2";
import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

const [setPath, httpVersion] = process.argv.slice(2);
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(setPath)));
const service = registry.getService("grpc.testing.TestService");
const message = (name, init) => create(registry.getMessage(`grpc.testing.${name}`), init);
const payload = (n) => message("Payload", { body: new Uint8Array(n) });

// Sleeps, or stops when the call is cancelled (its deadline included).
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

// The interop description's metadata echo.
function echoMetadata(context) {
  const initial = context.requestHeader.get("x-grpc-test-echo-initial");
  if (initial !== null) context.responseHeader.set("x-grpc-test-echo-initial", initial);
  const trailing = context.requestHeader.get("x-grpc-test-echo-trailing-bin");
  if (trailing !== null) context.responseTrailer.set("x-grpc-test-echo-trailing-bin", trailing);
}

// Fails the call with the status a request asks for (Connect's codes are
// gRPC's numbers); with x-fastrs-test-echo-details (as interop-server
// reads it), the status carries the EchoStatus as its detail.
function echoStatus(status, context) {
  if (!status || status.code === 0) return;
  const details = context.requestHeader.has("x-fastrs-test-echo-details")
    ? [{ desc: registry.getMessage("grpc.testing.EchoStatus"), value: status }]
    : [];
  throw new ConnectError(status.message, status.code, undefined, details);
}

async function* answer(request, context) {
  for (const parameters of request.responseParameters) {
    if (parameters.intervalUs > 0) await sleep(parameters.intervalUs / 1000, context.signal);
    yield message("StreamingOutputCallResponse", { payload: payload(parameters.size) });
  }
}

// UnimplementedCall is left out: connect-node answers it `unimplemented`.
const implementation = {
  async emptyCall() {
    return message("Empty", {});
  },
  async unaryCall(request, context) {
    echoMetadata(context);
    echoStatus(request.responseStatus, context);
    return message("SimpleResponse", { payload: payload(request.responseSize) });
  },
  async cacheableUnaryCall(request) {
    return message("SimpleResponse", { payload: payload(request.responseSize) });
  },
  async *streamingOutputCall(request, context) {
    echoMetadata(context);
    yield* answer(request, context);
    echoStatus(request.responseStatus, context);
  },
  async streamingInputCall(requests) {
    let size = 0;
    for await (const request of requests) size += request.payload?.body.length ?? 0;
    return message("StreamingInputCallResponse", { aggregatedPayloadSize: size });
  },
  async *fullDuplexCall(requests, context) {
    echoMetadata(context);
    for await (const request of requests) {
      echoStatus(request.responseStatus, context);
      yield* answer(request, context);
    }
  },
};

const adapter = connectNodeAdapter({ routes: (router) => router.service(service, implementation) });
const server = httpVersion === "2" ? http2.createServer(adapter) : http.createServer(adapter);
server.listen(0, "127.0.0.1", () => console.log(`listening on 127.0.0.1:${server.address().port}`));
