// gRPC's interop cases for connect-es clients, shared by the Node client
// (client.mjs) and the browser page (browser.mjs).
import { Code, ConnectError } from "@connectrpc/connect";

function check(condition, why) {
  if (!condition) throw new Error(why);
}

const zeros = (n) => new Uint8Array(n);

async function* requests(list) {
  for (const r of list) yield r;
}

// Runs `call`, which must fail with `code` (and `text`, and pass `more`).
async function expectError(call, code, text, more) {
  try {
    await call();
  } catch (e) {
    const err = ConnectError.from(e);
    check(err.code === code, `code ${Code[err.code]}, not ${Code[code]}`);
    if (text !== undefined) check(err.rawMessage === text, `message ${JSON.stringify(err.rawMessage)}`);
    if (more !== undefined) more(err);
    return;
  }
  throw new Error("no error");
}

// A request stream that never yields (until the call is cancelled).
async function* never() {
  await new Promise(() => {});
}

// The cases, run by `client` (and `gzipped`, a client that gzips, or
// undefined) of TestService; `other` is a client of UnimplementedService;
// `message(name, init)` makes a grpc.testing message, `schema(name)` gives
// its descriptor.
export function interopCases({ message, schema, client, gzipped, other }) {
  const payload = (n) => message("Payload", { body: zeros(n) });
  return {
    async empty_unary() {
      await client.emptyCall(message("Empty", {}));
    },
    async large_unary() {
      const r = await client.unaryCall(message("SimpleRequest", { responseSize: 314159, payload: payload(271828) }));
      check(r.payload.body.length === 314159, `body of ${r.payload.body.length}`);
    },
    async cacheable_unary() {
      const r = await client.cacheableUnaryCall(message("SimpleRequest", { responseSize: 7 }));
      check(r.payload.body.length === 7, `body of ${r.payload.body.length}`);
    },
    async server_streaming() {
      const sizes = [31415, 9, 2653, 58979];
      const got = [];
      const parameters = sizes.map((size) => message("ResponseParameters", { size }));
      for await (const r of client.streamingOutputCall(message("StreamingOutputCallRequest", { responseParameters: parameters }))) {
        got.push(r.payload.body.length);
      }
      check(JSON.stringify(got) === JSON.stringify(sizes), `sizes ${got}`);
    },
    async client_streaming() {
      const sizes = [27182, 8, 1828, 45904];
      const r = await client.streamingInputCall(
        requests(sizes.map((n) => message("StreamingInputCallRequest", { payload: payload(n) }))),
      );
      check(r.aggregatedPayloadSize === 74922, `aggregate ${r.aggregatedPayloadSize}`);
    },
    async ping_pong() {
      const sizes = [31415, 9, 2653, 58979];
      const inputs = [27182, 8, 1828, 45904];
      const got = [];
      const stream = client.fullDuplexCall(
        requests(
          sizes.map((size, i) =>
            message("StreamingOutputCallRequest", {
              responseParameters: [message("ResponseParameters", { size })],
              payload: payload(inputs[i]),
            }),
          ),
        ),
      );
      for await (const r of stream) got.push(r.payload.body.length);
      check(JSON.stringify(got) === JSON.stringify(sizes), `sizes ${got}`);
    },
    async empty_stream() {
      let count = 0;
      for await (const _ of client.fullDuplexCall(requests([]))) count++;
      check(count === 0, `${count} responses`);
    },
    async gzip_unary() {
      const r = await gzipped.unaryCall(message("SimpleRequest", { responseSize: 314159, payload: payload(271828) }));
      check(r.payload.body.length === 314159, `body of ${r.payload.body.length}`);
    },
    // gRPC's compression probes, over Connect: the handler sees whether
    // the request came gzipped, and decides whether its answer is.
    async client_compressed_unary() {
      const yes = message("BoolValue", { value: true });
      const big = payload(271828);
      const r = await gzipped.unaryCall(message("SimpleRequest", { expectCompressed: yes, responseSize: 314159, payload: big }));
      check(r.payload.body.length === 314159, `body of ${r.payload.body.length}`);
      await expectError(
        () => client.unaryCall(message("SimpleRequest", { expectCompressed: yes, responseSize: 1, payload: big })),
        Code.InvalidArgument,
      );
    },
    async server_compressed_unary() {
      for (const value of [true, false]) {
        const request = { responseCompressed: message("BoolValue", { value }), responseSize: 314159 };
        const r = await gzipped.unaryCall(message("SimpleRequest", request));
        check(r.payload.body.length === 314159, `body of ${r.payload.body.length}`);
      }
    },
    async gzip_client_streaming() {
      const sizes = [27182, 8, 1828, 45904];
      const r = await gzipped.streamingInputCall(
        requests(sizes.map((n) => message("StreamingInputCallRequest", { payload: payload(n) }))),
      );
      check(r.aggregatedPayloadSize === 74922, `aggregate ${r.aggregatedPayloadSize}`);
    },
    async error_details() {
      // interop-server's own header: the status carries the EchoStatus as
      // its detail (unary, and at the end of a server stream).
      const status = message("EchoStatus", { code: 3, message: "with details" });
      const headers = { "x-fastrs-test-echo-details": "1" };
      const calls = [
        () => client.unaryCall(message("SimpleRequest", { responseStatus: status }), { headers }),
        async () => {
          const request = message("StreamingOutputCallRequest", { responseStatus: status });
          for await (const _ of client.streamingOutputCall(request, { headers }));
        },
      ];
      for (const call of calls) {
        await expectError(call, Code.InvalidArgument, "with details", (err) => {
          const found = err.findDetails(schema("EchoStatus"));
          check(found.length === 1 && found[0].code === 3, `details ${JSON.stringify(err.details)}`);
        });
      }
    },
    async cancel_after_begin() {
      const abort = new AbortController();
      const call = client.streamingInputCall(never(), { signal: abort.signal });
      setTimeout(() => abort.abort(), 20);
      await expectError(() => call, Code.Canceled);
    },
    async cancel_after_first_response() {
      const abort = new AbortController();
      async function* first() {
        yield message("StreamingOutputCallRequest", {
          responseParameters: [message("ResponseParameters", { size: 31415 })],
          payload: payload(27182),
        });
        yield* never();
      }
      await expectError(async () => {
        for await (const _ of client.fullDuplexCall(first(), { signal: abort.signal })) abort.abort();
      }, Code.Canceled);
    },
    async status_code_and_message() {
      const text = "test status message";
      const status = message("EchoStatus", { code: 2, message: text });
      await expectError(() => client.unaryCall(message("SimpleRequest", { responseStatus: status })), Code.Unknown, text);
    },
    async special_status_message() {
      const text = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \ud83d\ude08\t\n";
      const status = message("EchoStatus", { code: 2, message: text });
      await expectError(() => client.unaryCall(message("SimpleRequest", { responseStatus: status })), Code.Unknown, text);
    },
    async unimplemented_method() {
      await expectError(() => client.unimplementedCall(message("Empty", {})), Code.Unimplemented);
    },
    async unimplemented_service() {
      await expectError(() => other.unimplementedCall(message("Empty", {})), Code.Unimplemented);
    },
    async custom_metadata() {
      const headers = new Headers({
        "x-grpc-test-echo-initial": "test_initial_metadata_value",
        "x-grpc-test-echo-trailing-bin": "q6ur",
      });
      let seenHeaders, seenTrailers;
      await client.unaryCall(message("SimpleRequest", { responseSize: 1 }), {
        headers,
        onHeader: (h) => (seenHeaders = h),
        onTrailer: (t) => (seenTrailers = t),
      });
      check(seenHeaders.get("x-grpc-test-echo-initial") === "test_initial_metadata_value", "initial metadata");
      check((seenTrailers.get("x-grpc-test-echo-trailing-bin") ?? "").startsWith("q6ur"), "trailing metadata");
    },
    async timeout_on_sleeping_server() {
      const request = message("StreamingOutputCallRequest", {
        responseParameters: [message("ResponseParameters", { size: 1, intervalUs: 5000000 })],
      });
      await expectError(async () => {
        for await (const _ of client.streamingOutputCall(request, { timeoutMs: 50 }));
      }, Code.DeadlineExceeded);
    },
  };
}
