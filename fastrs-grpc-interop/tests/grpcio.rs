//! gRPC interop against grpcio, gRPC's Python implementation over its C
//! core: an implementation nobody here wrote. Every interop case runs both
//! ways, `interop-client` against a grpcio server and a grpcio client
//! against `interop-server`, on 127.0.0.1 with every wait bounded.
//!
//! The server and client are written in Python from gRPC's interop test
//! description (`tests/grpcio/`); grpcio is installed from the pinned
//! `tests/grpcio/requirements.txt` into a virtual environment under the
//! target directory. Without Python or the packages the tests say so in one
//! line and pass (`FASTRS_REQUIRE_EXTERNAL=1` makes that a failure).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fastrs_grpc_interop::CASES;

/// Cases a grpcio server cannot take part in, and why.
const NOT_AGAINST_GRPCIO_SERVER: [(&str, &str); 1] = [(
    "client_compressed_unary",
    "grpcio's Python API cannot see whether a request arrived compressed, so its server cannot refuse the probe",
)];

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// grpcio's interpreter and the interop schemas' Python stubs, generated
/// with grpcio-tools from the project's copies of the schemas.
fn grpcio(test: &str) -> Option<(PathBuf, PathBuf)> {
    let python = fastrs_test_tools::python_env(test, "grpcio", &here().join("tests/grpcio/requirements.txt"))?;
    let stubs = fastrs_test_tools::target_dir().join(format!("python/stubs-{}", test.replace(' ', "-")));
    std::fs::create_dir_all(&stubs).expect("a stubs directory");
    let out = Command::new(&python)
        .args(["-m", "grpc_tools.protoc", "-I"])
        .arg(here().join("proto"))
        .arg(format!("--python_out={}", stubs.display()))
        .arg(format!("--grpc_python_out={}", stubs.display()))
        .args([
            "grpc/testing/empty.proto",
            "grpc/testing/messages.proto",
            "grpc/testing/test.proto",
        ])
        .output()
        .expect("grpc_tools.protoc runs");
    assert!(
        out.status.success(),
        "grpc_tools.protoc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some((python, stubs))
}

/// A server process that prints `listening on ADDR` first; killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(command: &mut Command) -> Server {
        let mut child = command.stdout(Stdio::piped()).spawn().expect("the server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the server says where it listens");
        let port = line
            .trim()
            .rsplit_once(':')
            .and_then(|(_, port)| port.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
        Server { child, port }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a client process for one case; its stderr if it failed or hung.
fn run_case(mut command: Command, case: &str) -> Result<(), String> {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(&mut child.stderr.take().expect("piped"), &mut err);
            return if status.success() {
                Ok(())
            } else {
                Err(format!("{case}: {status}: {}", err.trim()))
            };
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(format!("{case}: no answer in 30 s"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn all_pass(failures: Vec<String>) {
    assert!(failures.is_empty(), "failed cases:\n{}", failures.join("\n"));
}

#[test]
fn fastrs_client_passes_every_case_against_a_grpcio_server() {
    let Some((python, stubs)) = grpcio("grpcio server") else {
        return;
    };
    let server = Server::start(
        Command::new(&python)
            .arg(here().join("tests/grpcio/interop_server.py"))
            .args(["--port", "0", "--stubs"])
            .arg(&stubs),
    );
    let failures = CASES
        .iter()
        .filter(|case| !NOT_AGAINST_GRPCIO_SERVER.iter().any(|(c, _)| c == *case))
        .filter_map(|case| {
            let mut client = Command::new(env!("CARGO_BIN_EXE_interop-client"));
            client
                .args(["--server_host", "127.0.0.1", "--server_port", &server.port.to_string()])
                .args(["--test_case", case]);
            run_case(client, case).err()
        })
        .collect();
    all_pass(failures);
}

#[test]
fn grpcio_client_passes_every_case_against_the_fastrs_server() {
    let Some((python, stubs)) = grpcio("grpcio client") else {
        return;
    };
    let server = Server::start(Command::new(env!("CARGO_BIN_EXE_interop-server")).args(["--port", "0"]));
    let failures = CASES
        .iter()
        .filter_map(|case| {
            let mut client = Command::new(&python);
            client
                .arg(here().join("tests/grpcio/interop_client.py"))
                .args(["--server_host", "127.0.0.1", "--server_port", &server.port.to_string()])
                .args(["--test_case", case, "--stubs"])
                .arg(&stubs);
            run_case(client, case).err()
        })
        .collect();
    all_pass(failures);
}

/// grpcio's client calls the sign-up service, generated with validation:
/// an invalid request is refused with `INVALID_ARGUMENT` and its
/// violations in the details, as grpcio reads them.
#[test]
fn grpcio_client_gets_violations_from_a_server_with_validation() {
    let test = "grpcio client against validation";
    let Some((python, _)) = grpcio(test) else {
        return;
    };
    let stubs = fastrs_test_tools::target_dir().join("python/stubs-validate");
    std::fs::create_dir_all(&stubs).expect("a stubs directory");
    let out = Command::new(&python)
        .args(["-m", "grpc_tools.protoc", "-I"])
        .arg(here().join("../proto"))
        .arg("-I")
        .arg(here().join("tests/grpcio"))
        .arg(format!("--python_out={}", stubs.display()))
        .args(["demo/signup.proto", "buf/validate/validate.proto", "status.proto"])
        .output()
        .expect("grpc_tools.protoc runs");
    assert!(
        out.status.success(),
        "grpc_tools.protoc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = Server::start(Command::new(env!("CARGO_BIN_EXE_interop-server")).args(["--port", "0"]));
    let out = Command::new(&python)
        .arg(here().join("tests/grpcio/validate_client.py"))
        .args(["--server_port", &server.port.to_string(), "--stubs"])
        .arg(&stubs)
        .output()
        .expect("the client runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(
        lines,
        [
            "passwords_match ",
            "string.email email",
            "string.min_len name",
            "uint32.gte_lte age",
            "required address",
            "string.min_len password",
        ]
    );
}
