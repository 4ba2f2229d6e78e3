//! The `fastrs` binary end to end: its output against `protoc --decode`
//! and `--decode_raw` on the same input, round trips, and exit statuses on
//! bad input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SHOP: &str = r#"
syntax = "proto3";
package acme.shop.v1;
import "google/protobuf/timestamp.proto";
message Order {
  int64 id = 1;
  repeated Line lines = 2;
  map<string, int32> tags = 3;
  google.protobuf.Timestamp placed = 4;
  oneof pay { string card = 5; bool cash = 6; }
  message Line { string sku = 1; uint32 quantity = 2; }
  enum State { STATE_UNSPECIFIED = 0; OPEN = 1; }
  State state = 7;
}
service Shop { rpc Get(Order) returns (stream Order); }
"#;

const ORDER: &str = r#"id: 7 lines { sku: "A-1" quantity: 2 } lines { sku: "B-2" } tags { key: "x" value: 1 } placed { seconds: 5 } cash: true state: OPEN"#;

/// A scratch directory holding `shop.proto` and its descriptor set.
struct Fixture {
    dir: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("fastrs-cli-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("shop.proto"), SHOP).unwrap();
        let status = protoc(&dir)
            .args(["--include_imports", "-o", "shop.pb", "shop.proto"])
            .status()
            .unwrap();
        assert!(status.success());
        Fixture { dir }
    }

    fn set(&self) -> PathBuf {
        self.dir.join("shop.pb")
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn protoc(dir: &Path) -> Command {
    let mut command = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap());
    command.current_dir(dir);
    command
}

/// Runs `command` with `input` on stdin.
fn run(command: &mut Command, input: &[u8]) -> Output {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn fastrs(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fastrs"));
    command.args(args);
    command
}

fn typed<'a>(command: &'a str, set: &'a Path) -> Vec<&'a str> {
    vec![
        command,
        "--descriptor-set",
        set.to_str().unwrap(),
        "--type",
        "acme.shop.v1.Order",
    ]
}

#[test]
fn encode_then_decode_matches_protoc() {
    let f = Fixture::new("match");
    let set = f.set();
    let encoded = run(&mut fastrs(&typed("encode", &set)), ORDER.as_bytes());
    assert!(encoded.status.success(), "{}", String::from_utf8_lossy(&encoded.stderr));
    let by_protoc = run(
        protoc(&f.dir).args(["--encode=acme.shop.v1.Order", "shop.proto"]),
        ORDER.as_bytes(),
    );
    assert_eq!(encoded.stdout, by_protoc.stdout, "the same bytes as protoc --encode");

    let decoded = run(&mut fastrs(&typed("decode", &set)), &encoded.stdout);
    assert!(decoded.status.success());
    let expected = run(
        protoc(&f.dir).args(["--decode=acme.shop.v1.Order", "shop.proto"]),
        &encoded.stdout,
    );
    assert_eq!(
        String::from_utf8(decoded.stdout).unwrap(),
        String::from_utf8(expected.stdout).unwrap()
    );

    let raw = run(&mut fastrs(&["decode", "--raw"]), &encoded.stdout);
    let expected = run(protoc(&f.dir).arg("--decode_raw"), &encoded.stdout);
    assert!(raw.status.success());
    assert_eq!(
        String::from_utf8(raw.stdout).unwrap(),
        String::from_utf8(expected.stdout).unwrap()
    );
}

#[test]
fn unknown_fields_are_printed_by_number() {
    let f = Fixture::new("unknown");
    let input = [0x08, 0x07, 0xa0, 0x06, 0x2a]; // id = 7, then field 100 = 42
    let decoded = run(&mut fastrs(&typed("decode", &f.set())), &input);
    assert_eq!(String::from_utf8(decoded.stdout).unwrap(), "id: 7\n100: 42\n");
}

#[test]
fn describe_prints_the_schema() {
    let f = Fixture::new("describe");
    let set = f.set();
    let out = run(
        &mut fastrs(&[
            "describe",
            "--descriptor-set",
            set.to_str().unwrap(),
            "acme.shop.v1.Order",
        ]),
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "message Order {",
        "  repeated .acme.shop.v1.Order.Line lines = 2;",
        "  map<string, int32> tags = 3;",
        "  oneof pay {\n    string card = 5;",
        "  enum State {",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let out = run(
        &mut fastrs(&[
            "describe",
            "--descriptor-set",
            set.to_str().unwrap(),
            "acme.shop.v1.Shop",
        ]),
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("rpc Get(.acme.shop.v1.Order) returns (stream .acme.shop.v1.Order);"),
        "{text}"
    );
}

#[test]
fn bad_input_fails_with_its_position() {
    let f = Fixture::new("bad");
    let set = f.set();
    let out = run(&mut fastrs(&typed("decode", &set)), &[0x12, 0x05, 0x0a]);
    assert_eq!(out.status.code(), Some(1));
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(error.contains("at byte"), "{error}");

    let out = run(&mut fastrs(&typed("encode", &set)), b"id: 1\nlines { nope: 2 }");
    assert_eq!(out.status.code(), Some(1));
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(error.contains("line 2, column 9"), "{error}");

    let out = run(&mut fastrs(&["decode", "--raw"]), &[0x0a, 0x7f]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn bad_command_lines_and_schemas_fail_with_usage() {
    let f = Fixture::new("usage");
    let set = f.set();
    for args in [
        vec!["decode", "--type", "x"],
        vec!["frobnicate"],
        vec![
            "decode",
            "--descriptor-set",
            set.to_str().unwrap(),
            "--type",
            "acme.Nope",
        ],
        vec!["decode", "--descriptor-set", "no-such-file.pb", "--type", "x"],
        vec!["decode", "--raw", "--json"],
        vec![
            "encode",
            "--descriptor-set",
            set.to_str().unwrap(),
            "--type",
            "acme.shop.v1.Order",
            "--json",
            "--text",
        ],
    ] {
        let out = run(&mut fastrs(&args), b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
    let bad_set = f.dir.join("bad.pb");
    std::fs::write(&bad_set, [0xff]).unwrap();
    let out = run(
        &mut fastrs(&["decode", "--descriptor-set", bad_set.to_str().unwrap(), "--type", "x"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let help = run(&mut fastrs(&["--help"]), b"");
    assert!(help.status.success() && String::from_utf8(help.stdout).unwrap().contains("decode --raw"));
}

#[test]
fn json_round_trips_through_binary() {
    let f = Fixture::new("json");
    let set = f.set();
    let encoded = run(&mut fastrs(&typed("encode", &set)), ORDER.as_bytes());
    let mut args = typed("decode", &set);
    args.push("--json");
    let json = run(&mut fastrs(&args), &encoded.stdout);
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    let text = String::from_utf8(json.stdout).unwrap();
    for part in [
        "\"id\": \"7\"",
        "\"placed\": \"1970-01-01T00:00:05Z\"",
        "\"state\": \"OPEN\"",
        "\"cash\": true",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    let mut args = typed("encode", &set);
    args.push("--json");
    let back = run(&mut fastrs(&args), text.as_bytes());
    assert!(back.status.success());
    assert_eq!(back.stdout, encoded.stdout);
    let bad = run(&mut fastrs(&args), b"{\"id\": \"x\"}");
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8(bad.stderr).unwrap().contains("id"));
}

/// `fastrs compile` writes what `protoc -o` writes, with each flag.
#[test]
fn compile_matches_protoc() {
    let f = Fixture::new("compile");
    let dir = f.dir.to_str().unwrap();
    for flags in [
        &[][..],
        &["--include-imports"],
        &["--include-imports", "--include-source-info"],
    ] {
        let mut args = vec!["compile", "-I", dir, "-o", "ours.pb"];
        args.extend_from_slice(flags);
        args.push("shop.proto");
        let out = run(fastrs(&args).current_dir(&f.dir), b"");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let protoc_flags: Vec<String> = flags
            .iter()
            .map(|f| f.replace('-', "_").replacen("__", "--", 1))
            .collect();
        let status = protoc(&f.dir)
            .args(&protoc_flags)
            .args(["-o", "theirs.pb", "shop.proto"])
            .status()
            .unwrap();
        assert!(status.success());
        let ours = std::fs::read(f.dir.join("ours.pb")).unwrap();
        let theirs = std::fs::read(f.dir.join("theirs.pb")).unwrap();
        assert!(ours == theirs, "fastrs compile {flags:?} differs from protoc");
    }
}

/// Errors come as protoc's `file:line:column: message` lines, at protoc's
/// place, with a non-zero exit.
#[test]
fn compile_errors_read_as_protoc() {
    let f = Fixture::new("compile-errors");
    std::fs::write(
        f.dir.join("bad.proto"),
        "syntax = \"proto3\";\nmessage A {\n  Missing m = 1;\n}\n",
    )
    .unwrap();
    let out = run(
        fastrs(&["compile", "-I", ".", "-o", "x.pb", "bad.proto"]).current_dir(&f.dir),
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let ours = String::from_utf8(out.stderr).unwrap();
    let theirs = protoc(&f.dir)
        .args(["-I", ".", "-o", "y.pb", "bad.proto"])
        .output()
        .unwrap();
    assert!(!theirs.status.success());
    let theirs = String::from_utf8(theirs.stderr).unwrap();
    let place = |text: &str| {
        text.lines()
            .next()
            .unwrap_or("")
            .splitn(4, ':')
            .take(3)
            .collect::<Vec<_>>()
            .join(":")
    };
    assert_eq!(place(&ours), "bad.proto:3:3", "{ours}");
    assert_eq!(place(&ours), place(&theirs), "{ours} / {theirs}");
}

/// `--proto FILE -I DIR` serves as the schema as a descriptor set does.
#[test]
fn proto_sources_are_a_schema() {
    let f = Fixture::new("proto-schema");
    let set = f.set();
    let dir = f.dir.to_str().unwrap();
    let by_set = run(&mut fastrs(&typed("encode", &set)), ORDER.as_bytes());
    assert!(by_set.status.success());
    let args = [
        "encode",
        "--proto",
        "shop.proto",
        "-I",
        dir,
        "--type",
        "acme.shop.v1.Order",
    ];
    let by_proto = run(&mut fastrs(&args), ORDER.as_bytes());
    assert!(
        by_proto.status.success(),
        "{}",
        String::from_utf8_lossy(&by_proto.stderr)
    );
    assert_eq!(by_proto.stdout, by_set.stdout);
    let described = run(
        &mut fastrs(&["describe", "--proto", "shop.proto", "-I", dir, "acme.shop.v1.Shop"]),
        b"",
    );
    assert!(described.status.success());
    assert!(String::from_utf8(described.stdout).unwrap().contains("rpc Get"));
}

const RULES: &str = r#"
syntax = "proto3";
package acme.users.v1;
import "buf/validate/validate.proto";
message User {
  option (buf.validate.message).cel = {
    id: "names_differ", message: "nickname must differ from name",
    expression: "this.nickname != this.name"
  };
  string email = 1 [(buf.validate.field).string.email = true];
  string name = 2 [(buf.validate.field).string.min_len = 1];
  string nickname = 3;
  map<string, int32> scores = 4 [(buf.validate.field).map.keys.string.min_len = 2];
}
"#;

/// `fastrs validate --proto users.proto -I DIR --type acme.users.v1.User`
/// with `extra` flags, on `input`: its stdout and exit status.
fn validate(extra: &[&str], input: &[u8]) -> (String, Option<i32>) {
    let dir = std::env::temp_dir().join(format!("fastrs-cli-{}-validate", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("users.proto"), RULES).unwrap();
    let mut args = vec![
        "validate",
        "--proto",
        "users.proto",
        "-I",
        dir.to_str().unwrap(),
        "--type",
        "acme.users.v1.User",
    ];
    args.extend(extra);
    let out = run(&mut fastrs(&args), input);
    (String::from_utf8(out.stdout).unwrap(), out.status.code())
}

#[test]
fn validate_prints_the_violations() {
    let input = br#"email: "nope" name: "ann" nickname: "ann" scores { key: "x" value: 1 }"#;
    let (out, status) = validate(&["--text"], input);
    assert_eq!(status, Some(1));
    assert_eq!(
        out,
        "nickname must differ from name [names_differ]\n\
         email: must be a valid email address [string.email]\n\
         scores[\"x\"] (key): must be at least 2 characters [string.min_len]\n"
    );
    let (out, status) = validate(&["--text", "--fail-fast"], input);
    assert_eq!((out.lines().count(), status), (1, Some(1)));

    let (out, status) = validate(&["--json"], br#"{"email": "ann@example.com", "name": "Ann"}"#);
    assert_eq!((out.as_str(), status), ("", Some(0)));

    // Binary on stdin by default: the same message, encoded.
    let encoded = run(
        &mut fastrs(&[
            "encode",
            "--proto",
            "users.proto",
            "-I",
            std::env::temp_dir()
                .join(format!("fastrs-cli-{}-validate", std::process::id()))
                .to_str()
                .unwrap(),
            "--type",
            "acme.users.v1.User",
        ]),
        br#"email: "nope" name: "ann""#,
    );
    let (out, status) = validate(&[], &encoded.stdout);
    assert_eq!(status, Some(1));
    assert_eq!(out, "email: must be a valid email address [string.email]\n");

    let (_, status) = validate(&[], b"\xff\xff");
    assert_eq!(status, Some(1), "input that does not decode");
}
