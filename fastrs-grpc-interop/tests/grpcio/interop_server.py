"""gRPC's interop server (doc/interop-test-descriptions.md in grpc/grpc),
written for fastrs's tests over grpcio: serves grpc.testing.TestService on
127.0.0.1 and prints `listening on 127.0.0.1:PORT` once it accepts calls.

    python interop_server.py --port PORT   (0 picks a free port)

The stubs come from grpc_tools.protoc, generated into the directory named
by --stubs.
"""

import argparse
import os
import sys
import time
from concurrent import futures

import grpc

ECHO_INITIAL = "x-grpc-test-echo-initial"
ECHO_TRAILING = "x-grpc-test-echo-trailing-bin"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stubs", required=True)
    args = parser.parse_args()
    # The stubs' package is `grpc.testing`, inside grpcio's own `grpc`.
    grpc.__path__.append(os.path.join(args.stubs, "grpc"))
    from grpc.testing import empty_pb2, messages_pb2, test_pb2_grpc

    def payload(size):
        if size < 0:
            raise ValueError("negative payload size")
        return messages_pb2.Payload(type=messages_pb2.COMPRESSABLE, body=b"\0" * size)

    def echo_metadata(context):
        """Initial metadata back as initial, the binary one as trailing."""
        received = dict(context.invocation_metadata())
        if ECHO_INITIAL in received:
            context.send_initial_metadata(((ECHO_INITIAL, received[ECHO_INITIAL]),))
        if ECHO_TRAILING in received:
            context.set_trailing_metadata(((ECHO_TRAILING, received[ECHO_TRAILING]),))

    def abort_with(status, context):
        """Ends the call with the status a request asks for, if any."""
        if status.code != 0:
            context.abort(_codes[status.code], status.message)

    _codes = {code.value[0]: code for code in grpc.StatusCode}

    class TestService(test_pb2_grpc.TestServiceServicer):
        def EmptyCall(self, request, context):
            return empty_pb2.Empty()

        def UnaryCall(self, request, context):
            echo_metadata(context)
            if request.HasField("response_status"):
                abort_with(request.response_status, context)
            # grpcio cannot tell whether a request arrived compressed, so
            # `expect_compressed` is not checked (the spec allows servers
            # that cannot introspect the call to ignore it).
            if request.response_compressed.value:
                context.set_compression(grpc.Compression.Gzip)
            else:
                context.set_compression(grpc.Compression.NoCompression)
            return messages_pb2.SimpleResponse(payload=payload(request.response_size))

        def CacheableUnaryCall(self, request, context):
            return self.UnaryCall(request, context)

        def StreamingOutputCall(self, request, context):
            yield from responses(request, context)

        def StreamingInputCall(self, request_iterator, context):
            total = sum(len(r.payload.body) for r in request_iterator)
            return messages_pb2.StreamingInputCallResponse(aggregated_payload_size=total)

        def FullDuplexCall(self, request_iterator, context):
            echo_metadata(context)
            for request in request_iterator:
                yield from responses(request, context)

        def HalfDuplexCall(self, request_iterator, context):
            held = list(request_iterator)
            for request in held:
                yield from responses(request, context)

    def responses(request, context):
        if request.HasField("response_status"):
            abort_with(request.response_status, context)
        for p in request.response_parameters:
            if p.interval_us > 0:
                time.sleep(p.interval_us / 1e6)
            yield messages_pb2.StreamingOutputCallResponse(payload=payload(p.size))

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    test_pb2_grpc.add_TestServiceServicer_to_server(TestService(), server)
    port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
