//! A real browser: headless Chromium loads a page that runs gRPC's interop
//! cases through connect-web (connect-es's fetch transports, bundled by
//! esbuild; pinned in tests/npm) against `interop-server` over Connect
//! (JSON, binary, GET) and gRPC-Web. The page comes from another origin
//! than the server, so every call goes through CORS as a deployed web app's
//! would. Chromium comes from the system (tests/tools/install-chromium).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use fastrs::Message as _;

mod common;
use common::{root, ServerProcess};

/// The cases the page runs, over each of its three transports.
const CASES: usize = 11;
const TRANSPORTS: usize = 3;

#[test]
fn chromium_runs_the_interop_cases_through_connect_web() {
    let test = "browser interop";
    let Some(npm) = fastrs_test_tools::npm_packages(test, "tools", &root().join("tests/npm")) else {
        return;
    };
    let Some(chromium) = fastrs_test_tools::chromium(test) else {
        return;
    };
    let scripts = common::connect_es_scripts(&npm);
    let bundle = scripts.join("bundle.js");
    let built = Command::new(npm.join("node_modules/.bin/esbuild"))
        .arg(scripts.join("browser.mjs"))
        .args(["--bundle", "--format=esm", "--log-level=warning"])
        .arg(format!("--outfile={}", bundle.display()))
        .output()
        .expect("esbuild runs");
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let set = fastrs_compiler::Compiler::new()
        .include(Path::new(env!("CARGO_MANIFEST_DIR")).join("proto"))
        .include_imports(true)
        .compile(&["grpc/testing/test.proto"])
        .expect("the interop schema compiles");

    let server = ServerProcess::start();
    let page = Page::serve(std::fs::read(&bundle).unwrap(), set.encode_to_vec());
    let profile = fastrs_test_tools::target_dir().join("chromium-profile");
    let _ = std::fs::remove_dir_all(&profile);
    let mut browser = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("{}/?server=http://{}", page.origin, server.addr))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("Chromium starts");
    let report = page.reports.recv_timeout(Duration::from_secs(90));
    let _ = browser.kill();
    let _ = browser.wait();
    let report = report.expect("the page reports within 90 s");
    let failures: Vec<&str> = report.lines().filter(|l| !l.starts_with("ok ")).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(report.lines().count(), CASES * TRANSPORTS, "{report}");
}

/// The page's own origin: a small HTTP/1.1 server on a free port that
/// serves the page, its script and the descriptor set, and passes on the
/// report the page posts.
struct Page {
    origin: String,
    reports: mpsc::Receiver<String>,
}

impl Page {
    fn serve(script: Vec<u8>, set: Vec<u8>) -> Page {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let (sender, reports) = mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if let Some(report) = answer(stream, &script, &set) {
                    let _ = sender.send(report);
                }
            }
        });
        Page { origin, reports }
    }
}

const HTML: &str = "<!doctype html><title>fastrs interop</title><script type=\"module\" src=\"/bundle.js\"></script>";

/// Answers one request (one per connection); returns the body of a
/// report.
fn answer(stream: TcpStream, script: &[u8], set: &[u8]) -> Option<String> {
    stream.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let path = line.split(' ').nth(1).unwrap_or("/");
    let (status, content_type, content): (&str, &str, &[u8]) = match path.split('?').next() {
        Some("/") => ("200 OK", "text/html", HTML.as_bytes()),
        Some("/bundle.js") => ("200 OK", "text/javascript", script),
        Some("/interop.pb") => ("200 OK", "application/octet-stream", set),
        Some("/report") => ("204 No Content", "text/plain", b""),
        _ => ("404 Not Found", "text/plain", b""),
    };
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        content.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(content).ok()?;
    (path == "/report").then(|| String::from_utf8_lossy(&body).into_owned())
}
