"""Calls the sign-up service of fastrs's interop-server with grpcio: an
invalid request must be refused with INVALID_ARGUMENT and its violations, a
buf.validate.Violations, in the status details; a valid one must go through.
Prints the refusal's violations, one `rule_id field.path` per line, and
exits 0 only if every check passed.

    python validate_client.py --server_port PORT --stubs DIR
"""

import argparse
import sys

import grpc


def path(violation):
    out = ""
    for e in violation.field.elements:
        if out:
            out += "."
        out += e.field_name
        kind = e.WhichOneof("subscript")
        if kind == "index":
            out += f"[{e.index}]"
        elif kind is not None:
            out += f"[{getattr(e, kind)!r}]"
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server_port", type=int, required=True)
    parser.add_argument("--stubs", required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.stubs)
    from buf.validate import validate_pb2
    from demo import signup_pb2
    import status_pb2

    with grpc.insecure_channel(f"127.0.0.1:{args.server_port}") as channel:
        grpc.channel_ready_future(channel).result(timeout=5)
        create = channel.unary_unary(
            "/acme.signup.v1.Signup/CreateAccount",
            request_serializer=signup_pb2.CreateAccountRequest.SerializeToString,
            response_deserializer=signup_pb2.CreateAccountResponse.FromString,
        )
        bad = signup_pb2.CreateAccountRequest(email="nope", age=7, password="x", password_confirmation="y")
        try:
            create(bad, timeout=10)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
                print(f"code {e.code()}, expected INVALID_ARGUMENT", file=sys.stderr)
                return 1
            raw = dict(e.trailing_metadata() or ()).get("grpc-status-details-bin")
            if raw is None:
                print("no grpc-status-details-bin", file=sys.stderr)
                return 1
            status = status_pb2.Status.FromString(raw)
            violations = validate_pb2.Violations()
            if len(status.details) != 1 or not status.details[0].Unpack(violations):
                print(f"details {status.details}, expected one Violations", file=sys.stderr)
                return 1
            for v in violations.violations:
                print(v.rule_id, path(v))
        else:
            print("an invalid request was accepted", file=sys.stderr)
            return 1
        good = signup_pb2.CreateAccountRequest(
            email="ada@example.com",
            name="Ada",
            age=36,
            address=signup_pb2.Address(line1="1 Sq", city="London", country="GB"),
            password="correct horse",
            password_confirmation="correct horse",
        )
        if create(good, timeout=10).id != 1:
            print("a valid request was not answered", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
