"""Validates messages with Buf's protovalidate for Python, for fastrs's
differential tests.

Usage: validate.py SET INPUT OUTPUT. SET is an encoded FileDescriptorSet;
each line of INPUT is a message type's full name, a tab, and the message's
encoding in base64. Each line of OUTPUT answers the line of INPUT with a
JSON object: {"valid": true}, {"violations": [base64 of each
buf.validate.Violation]}, or {"error": "..."}.
"""

import base64
import json
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import protovalidate


def main(set_path, input_path, output_path):
    files = descriptor_pb2.FileDescriptorSet()
    with open(set_path, "rb") as f:
        files.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    validator = protovalidate.Validator()
    classes = {}
    with open(input_path) as lines, open(output_path, "w") as out:
        for line in lines:
            name, data = line.rstrip("\n").split("\t")
            if name not in classes:
                classes[name] = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
            message = classes[name]()
            try:
                message.ParseFromString(base64.b64decode(data))
                violations = validator.collect_violations(message)
                if violations:
                    answer = {"violations": [base64.b64encode(v.proto.to_binary()).decode() for v in violations]}
                else:
                    answer = {"valid": True}
            except Exception as e:  # noqa: BLE001 - every failure is reported, by kind
                answer = {"error": f"{type(e).__name__}: {e}"}
            out.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
