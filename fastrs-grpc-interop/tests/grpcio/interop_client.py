"""gRPC's interop client (doc/interop-test-descriptions.md in grpc/grpc),
written for fastrs's tests over grpcio: runs one case against a server and
exits 0 only if every check passed.

    python interop_client.py --server_host HOST --server_port PORT \
        --test_case NAME --stubs DIR
"""

import argparse
import os
import sys
import threading
import queue

import grpc

ECHO_INITIAL = "x-grpc-test-echo-initial"
ECHO_TRAILING = "x-grpc-test-echo-trailing-bin"


class Failed(Exception):
    pass


def check(ok, what):
    if not ok:
        raise Failed(what)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server_host", default="127.0.0.1")
    parser.add_argument("--server_port", type=int, required=True)
    parser.add_argument("--test_case", required=True)
    parser.add_argument("--stubs", required=True)
    args = parser.parse_args()
    # The stubs' package is `grpc.testing`, inside grpcio's own `grpc`.
    grpc.__path__.append(os.path.join(args.stubs, "grpc"))
    global empty_pb2, messages_pb2, test_pb2_grpc
    from grpc.testing import empty_pb2, messages_pb2, test_pb2_grpc

    case = CASES.get(args.test_case)
    if case is None:
        print(f"no interop case named {args.test_case}", file=sys.stderr)
        return 2
    with grpc.insecure_channel(f"{args.server_host}:{args.server_port}") as channel:
        grpc.channel_ready_future(channel).result(timeout=5)
        try:
            case(channel)
        except Failed as e:
            print(f"{args.test_case}: FAILED: {e}", file=sys.stderr)
            return 1
        except grpc.RpcError as e:
            print(f"{args.test_case}: FAILED: {e.code()} {e.details()}", file=sys.stderr)
            return 1
    print(f"{args.test_case}: passed")
    return 0


def stub(channel):
    return test_pb2_grpc.TestServiceStub(channel)


def payload(size):
    return messages_pb2.Payload(body=b"\0" * size)


def large_request(**fields):
    return messages_pb2.SimpleRequest(response_size=314159, payload=payload(271828), **fields)


def check_large(response):
    n = len(response.payload.body)
    check(n == 314159, f"payload of {n} bytes, expected 314159")
    check(response.payload.body == b"\0" * n, "payload is not zeros")


def expect_code(call, code):
    try:
        call()
    except grpc.RpcError as e:
        check(e.code() == code, f"expected {code}, got {e.code()}: {e.details()}")
        return e
    raise Failed(f"expected {code}, the call succeeded")


def empty_unary(channel):
    check(stub(channel).EmptyCall(empty_pb2.Empty()) == empty_pb2.Empty(), "non-empty answer")


def large_unary(channel):
    check_large(stub(channel).UnaryCall(large_request()))


def client_compressed_unary(channel):
    s = stub(channel)
    flag = messages_pb2.BoolValue
    probe = large_request(expect_compressed=flag(value=True))
    expect_code(lambda: s.UnaryCall(probe, compression=grpc.Compression.NoCompression),
                grpc.StatusCode.INVALID_ARGUMENT)
    check_large(s.UnaryCall(large_request(expect_compressed=flag(value=True)),
                            compression=grpc.Compression.Gzip))
    check_large(s.UnaryCall(large_request(expect_compressed=flag(value=False)),
                            compression=grpc.Compression.NoCompression))


def server_compressed_unary(channel):
    # grpcio does not show a message's compressed flag: the answers are
    # checked, their compression is not.
    s = stub(channel)
    for compressed in (True, False):
        request = large_request(response_compressed=messages_pb2.BoolValue(value=compressed))
        check_large(s.UnaryCall(request))


def client_streaming(channel):
    sizes = [27182, 8, 1828, 45904]
    requests = (messages_pb2.StreamingInputCallRequest(payload=payload(n)) for n in sizes)
    r = stub(channel).StreamingInputCall(requests)
    check(r.aggregated_payload_size == 74922, f"aggregated size {r.aggregated_payload_size}")


def server_streaming(channel):
    sizes = [31415, 9, 2653, 58979]
    request = messages_pb2.StreamingOutputCallRequest(
        response_parameters=[messages_pb2.ResponseParameters(size=n) for n in sizes])
    got = [len(r.payload.body) for r in stub(channel).StreamingOutputCall(request)]
    check(got == sizes, f"response sizes {got}, expected {sizes}")


def duplex_request(size, payload_size):
    return messages_pb2.StreamingOutputCallRequest(
        response_parameters=[messages_pb2.ResponseParameters(size=size)],
        payload=payload(payload_size))


class Requests:
    """A request iterator fed one request at a time, for ping-pong."""

    def __init__(self):
        self.queue = queue.Queue()

    def send(self, request):
        self.queue.put(request)

    def close(self):
        self.queue.put(None)

    def __iter__(self):
        return self

    def __next__(self):
        item = self.queue.get(timeout=10)
        if item is None:
            raise StopIteration
        return item


def ping_pong(channel):
    requests = Requests()
    responses = stub(channel).FullDuplexCall(requests)
    for size, payload_size in [(31415, 27182), (9, 8), (2653, 1828), (58979, 45904)]:
        requests.send(duplex_request(size, payload_size))
        r = next(responses)
        check(len(r.payload.body) == size, f"response of {len(r.payload.body)} bytes, expected {size}")
    requests.close()
    check(next(responses, None) is None, "a response after the last request")


def empty_stream(channel):
    check(list(stub(channel).FullDuplexCall(iter([]))) == [], "responses to no requests")


def echo_status(message):
    def case(channel):
        s = stub(channel)
        status = messages_pb2.EchoStatus(code=2, message=message)

        def expect_unknown(call):
            e = expect_code(call, grpc.StatusCode.UNKNOWN)
            check(e.details() == message, f"message {e.details()!r}, expected {message!r}")

        expect_unknown(lambda: s.UnaryCall(messages_pb2.SimpleRequest(response_status=status)))
        request = messages_pb2.StreamingOutputCallRequest(response_status=status)
        expect_unknown(lambda: list(s.FullDuplexCall(iter([request]))))
    return case


def unimplemented_method(channel):
    expect_code(lambda: stub(channel).UnimplementedCall(empty_pb2.Empty()),
                grpc.StatusCode.UNIMPLEMENTED)


def unimplemented_service(channel):
    other = test_pb2_grpc.UnimplementedServiceStub(channel)
    expect_code(lambda: other.UnimplementedCall(empty_pb2.Empty()), grpc.StatusCode.UNIMPLEMENTED)


def custom_metadata(channel):
    s = stub(channel)
    metadata = ((ECHO_INITIAL, "test_initial_metadata_value"), (ECHO_TRAILING, b"\xab\xab\xab"))

    def check_metadata(initial, trailing):
        initial, trailing = dict(initial), dict(trailing)
        check(initial.get(ECHO_INITIAL) == "test_initial_metadata_value", f"initial metadata {initial}")
        check(trailing.get(ECHO_TRAILING) == b"\xab\xab\xab", f"trailing metadata {trailing}")

    response, call = s.UnaryCall.with_call(large_request(), metadata=metadata)
    check_large(response)
    check_metadata(call.initial_metadata(), call.trailing_metadata())
    call = s.FullDuplexCall(iter([duplex_request(314159, 271828)]), metadata=metadata)
    sizes = [len(r.payload.body) for r in call]
    check(sizes == [314159], f"responses {sizes}")
    check_metadata(call.initial_metadata(), call.trailing_metadata())


def timeout_on_sleeping_server(channel):
    requests = Requests()
    requests.send(duplex_request(31415, 27182))  # never closed: the server waits
    call = stub(channel).FullDuplexCall(requests, timeout=0.001)
    expect_code(lambda: list(call), grpc.StatusCode.DEADLINE_EXCEEDED)
    requests.close()


def cancel_after_begin(channel):
    requests = Requests()
    future = stub(channel).StreamingInputCall.future(requests)
    future.cancel()
    requests.close()
    check(future.cancelled(), "the call was not cancelled")
    check(future.code() == grpc.StatusCode.CANCELLED, f"status {future.code()}, expected CANCELLED")


def cancel_after_first_response(channel):
    requests = Requests()
    call = stub(channel).FullDuplexCall(requests)
    requests.send(duplex_request(31415, 27182))
    first = next(call)
    check(len(first.payload.body) == 31415, f"first response of {len(first.payload.body)} bytes")
    call.cancel()
    expect_code(lambda: next(call), grpc.StatusCode.CANCELLED)
    requests.close()


CASES = {
    "empty_unary": empty_unary,
    "large_unary": large_unary,
    "client_compressed_unary": client_compressed_unary,
    "server_compressed_unary": server_compressed_unary,
    "client_streaming": client_streaming,
    "server_streaming": server_streaming,
    "ping_pong": ping_pong,
    "empty_stream": empty_stream,
    "status_code_and_message": echo_status("test status message"),
    "special_status_message": echo_status(
        "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \U0001F608\t\n"),
    "unimplemented_method": unimplemented_method,
    "unimplemented_service": unimplemented_service,
    "custom_metadata": custom_metadata,
    "timeout_on_sleeping_server": timeout_on_sleeping_server,
    "cancel_after_begin": cancel_after_begin,
    "cancel_after_first_response": cancel_after_first_response,
}

if __name__ == "__main__":
    sys.exit(main())
