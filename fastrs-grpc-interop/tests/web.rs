//! The real buf CLI (`buf curl`, connect-go underneath; pinned in
//! tests/npm) against `interop-server` over gRPC, gRPC-Web and Connect on
//! one port: reflection listing, unary calls in JSON, a server stream,
//! and errors. Plain HTTP (curl's part) is played by a raw HTTP/1.1 client
//! for Connect's GET and its malformed requests.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::{root, ServerProcess};

/// The pinned buf binary, or `None` (the test skips) without npm.
fn buf(test: &str) -> Option<PathBuf> {
    let npm = fastrs_test_tools::npm_packages(test, "tools", &root().join("tests/npm"))?;
    Some(npm.join("node_modules/.bin/buf"))
}

/// `buf curl` with `args`, bounded in time.
fn curl(buf: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(buf)
        .arg("curl")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("buf runs");
    for _ in 0..200 {
        if child.try_wait().expect("waits").is_some() {
            return child.wait_with_output().expect("output");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("buf curl {args:?} took over 20 s");
}

const METHOD: &str = "grpc.testing.TestService";

#[test]
fn buf_curl_over_three_protocols() {
    let Some(buf) = buf("buf curl over gRPC, gRPC-Web and Connect") else {
        return;
    };
    let server = ServerProcess::start();
    let base = format!("http://{}", server.addr);
    for protocol in ["grpc", "grpcweb", "connect"] {
        let listed = curl(&buf, &["--protocol", protocol, "--list-methods", &base]);
        let listed = String::from_utf8_lossy(&listed.stdout);
        assert!(
            listed.contains("grpc.testing.TestService/UnaryCall"),
            "{protocol}: {listed}"
        );

        let url = format!("{base}/{METHOD}/UnaryCall");
        let out = curl(
            &buf,
            &[
                "--protocol",
                protocol,
                "--data",
                r#"{"responseSize": 3, "fillUsername": true}"#,
                &url,
            ],
        );
        assert!(
            out.status.success(),
            "{protocol}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(answer["payload"]["body"], "AAAA", "{protocol}");

        let url = format!("{base}/{METHOD}/StreamingOutputCall");
        let data = r#"{"responseParameters": [{"size": 1}, {"size": 2}, {"size": 3}]}"#;
        let out = curl(&buf, &["--protocol", protocol, "--data", data, &url]);
        assert!(
            out.status.success(),
            "{protocol}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let bodies: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&text)
            .into_iter::<serde_json::Value>()
            .map(|v| v.expect("JSON")["payload"]["body"].clone())
            .collect();
        assert_eq!(bodies, ["AA==", "AAA=", "AAAA"], "{protocol}");

        let url = format!("{base}/{METHOD}/UnaryCall");
        let data = r#"{"responseStatus": {"code": 5, "message": "not here"}}"#;
        let out = curl(&buf, &["--protocol", protocol, "--data", data, &url]);
        assert!(!out.status.success(), "{protocol}");
        let error: serde_json::Value = serde_json::from_slice(&out.stderr).expect("an error in JSON");
        assert_eq!(error["code"], "not_found", "{protocol}");
        assert_eq!(error["message"], "not here", "{protocol}");

        // With details: buf curl shows each by its type and value (and,
        // when it resolves the type by reflection in time, as JSON).
        let header = "x-fastrs-test-echo-details: 1";
        let out = curl(&buf, &["--protocol", protocol, "-H", header, "--data", data, &url]);
        let error: serde_json::Value = serde_json::from_slice(&out.stderr).expect("an error in JSON");
        assert_eq!(error["code"], "not_found", "{protocol}");
        let detail = &error["details"][0];
        assert_eq!(detail["type"], "grpc.testing.EchoStatus", "{protocol}: {error}");
        // EchoStatus { code: 5, message: "not here" }, in base64.
        assert_eq!(detail["value"], "CAUSCG5vdCBoZXJl", "{protocol}: {error}");

        let url = format!("{base}/{METHOD}/UnimplementedCall");
        let out = curl(&buf, &["--protocol", protocol, "--data", "{}", &url]);
        let error: serde_json::Value = serde_json::from_slice(&out.stderr).expect("an error in JSON");
        assert_eq!(error["code"], "unimplemented", "{protocol}");
    }
}

/// A raw HTTP/1.1 exchange: the status line's code and the body.
fn http(addr: SocketAddr, request: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    let code = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status line");
    let at = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(response.len(), |p| p + 4);
    (code, response[at..].to_vec())
}

fn post(addr: SocketAddr, method: &str, content_type: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let request = format!(
        "POST /{METHOD}/{method} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: {content_type}\r\n\
         connect-protocol-version: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    http(addr, &request, body)
}

/// Connect unary as plain HTTP: JSON and binary, and malformed requests
/// refused with Connect's errors while the server keeps serving.
#[test]
fn connect_unary_over_plain_http() {
    let server = ServerProcess::start();
    let addr = server.addr;
    let (code, body) = post(addr, "UnaryCall", "application/json", br#"{"responseSize": 2}"#);
    assert_eq!(code, 200);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()["payload"]["body"],
        "AAA="
    );

    // The binary codec: SimpleRequest { response_size: 2 } and its answer.
    let (code, body) = post(addr, "UnaryCall", "application/proto", &[0x10, 0x02]);
    assert_eq!(code, 200);
    assert_eq!(body, [0x0a, 0x04, 0x12, 0x02, 0, 0]);

    let (code, body) = post(addr, "UnaryCall", "application/json", b"{not json");
    assert_eq!(code, 400);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()["code"],
        "invalid_argument"
    );

    let (code, body) = post(addr, "UnaryCall", "application/proto", &[0x10]);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()["code"],
        "internal",
        "{code}"
    );

    let (code, _) = post(addr, "NoSuchMethod", "application/json", b"{}");
    assert_eq!(code, 501);

    let (code, _) = post(addr, "EmptyCall", "application/json", b"{}");
    assert_eq!(code, 200, "still serving");
}

/// GET is for methods marked `NO_SIDE_EFFECTS`: `EmptyCall` is not, so
/// Connect refuses it with `invalid_argument`.
#[test]
fn connect_get_needs_a_side_effect_free_method() {
    let server = ServerProcess::start();
    let addr = server.addr;
    let request = format!(
        "GET /{METHOD}/EmptyCall?connect=v1&encoding=json&message=%7B%7D HTTP/1.1\r\nhost: {addr}\r\n\
         connection: close\r\n\r\n"
    );
    let (code, body) = http(addr, &request, b"");
    assert_eq!(code, 400);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()["code"],
        "invalid_argument"
    );
}

/// GET calls `CacheableUnaryCall` (marked `NO_SIDE_EFFECTS`), with the
/// message escaped in the query or in base64.
#[test]
fn connect_get_calls_a_side_effect_free_method() {
    let server = ServerProcess::start();
    let addr = server.addr;
    let get = |query: &str| {
        let request =
            format!("GET /{METHOD}/CacheableUnaryCall?{query} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
        http(addr, &request, b"")
    };
    let (code, body) = get("connect=v1&encoding=json&message=%7B%22responseSize%22%3A2%7D");
    assert_eq!(code, 200);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()["payload"]["body"],
        "AAA="
    );
    // SimpleRequest { response_size: 2 } is [0x10, 0x02]: "EAI" in URL-safe base64.
    let (code, body) = get("connect=v1&encoding=proto&base64=1&message=EAI");
    assert_eq!(code, 200);
    assert_eq!(body, [0x0a, 0x04, 0x12, 0x02, 0, 0]);
    // The same message gzipped.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&[0x10, 0x02]).unwrap();
    let gzipped = base64_url(&encoder.finish().unwrap());
    let (code, body) = get(&format!(
        "connect=v1&encoding=proto&base64=1&compression=gzip&message={gzipped}"
    ));
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(body, [0x0a, 0x04, 0x12, 0x02, 0, 0]);
}

/// `data` in URL-safe base64 without padding.
fn base64_url(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Browsers of other origins: a preflight is answered, and answers carry
/// the headers that let the page read them, gRPC-Web's too.
#[test]
fn browsers_get_cors_answers() {
    let server = ServerProcess::start();
    let addr = server.addr;
    let preflight = format!(
        "OPTIONS /{METHOD}/UnaryCall HTTP/1.1\r\nhost: {addr}\r\norigin: http://page.test\r\n\
         access-control-request-method: POST\r\naccess-control-request-headers: content-type,x-grpc-web\r\n\
         connection: close\r\n\r\n"
    );
    let (code, _) = http(addr, &preflight, b"");
    assert_eq!(code, 204);
    let raw = raw_http(addr, &preflight, b"");
    assert!(raw.contains("access-control-allow-origin: *"), "{raw}");
    assert!(
        raw.contains("access-control-allow-headers: content-type,x-grpc-web"),
        "{raw}"
    );

    let body = br#"{"responseSize": 1}"#;
    let post = format!(
        "POST /{METHOD}/UnaryCall HTTP/1.1\r\nhost: {addr}\r\norigin: http://page.test\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let raw = raw_http(addr, &post, body);
    assert!(
        raw.contains("access-control-allow-origin: *") && raw.contains("access-control-expose-headers: grpc-status"),
        "{raw}"
    );

    let frame = [0u8, 0, 0, 0, 2, 0x10, 0x01];
    let grpc_web = format!(
        "POST /{METHOD}/UnaryCall HTTP/1.1\r\nhost: {addr}\r\norigin: http://page.test\r\n\
         content-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        frame.len()
    );
    let raw = raw_http(addr, &grpc_web, &frame);
    assert!(
        raw.starts_with("http/1.1 200") && raw.contains("access-control-allow-origin: *"),
        "{raw}"
    );
}

/// Malformed requests get their protocol's error, and the server keeps
/// serving: a cut envelope, bad JSON in a stream, a length past the limit,
/// a content type no protocol has, an oversized body.
#[test]
fn malformed_requests_get_the_protocols_error() {
    let server = ServerProcess::start();
    let addr = server.addr;
    let stream = |content_type: &str, body: &[u8]| {
        let (code, answer) = post(addr, "StreamingOutputCall", content_type, body);
        assert_eq!(code, 200, "Connect streams answer 200, errors in the end message");
        let answer = dechunk(&answer);
        let end = answer.get(5..).expect("an end-of-stream envelope");
        assert_eq!(answer[0], 2, "the end-of-stream flag");
        serde_json::from_slice::<serde_json::Value>(end).expect("end-of-stream JSON")["error"]["code"].clone()
    };
    // An envelope that says 10 bytes and has 2.
    assert_eq!(stream("application/connect+proto", &[0, 0, 0, 0, 10, 1, 2]), "internal");
    // An envelope of bad JSON.
    assert_eq!(
        stream("application/connect+json", &[0, 0, 0, 0, 3, b'{', b'x', b'}']),
        "invalid_argument"
    );
    // A length past the server's limit (tonic's code for it).
    assert_eq!(
        stream("application/connect+proto", &[0, 0x7f, 0xff, 0xff, 0xff]),
        "out_of_range"
    );

    let (code, _) = post(addr, "UnaryCall", "text/plain", b"hello");
    assert_eq!(code, 415);
    let raw = raw_http(
        addr,
        &format!(
            "POST /{METHOD}/UnaryCall HTTP/1.1\r\nhost: {addr}\r\ncontent-type: text/plain\r\n\
             content-length: 0\r\nconnection: close\r\n\r\n"
        ),
        b"",
    );
    assert!(raw.contains("accept-post: application/json"), "{raw}");

    let (code, body) = post(addr, "UnaryCall", "application/proto", &vec![0; 5 << 20]);
    assert_eq!(code, 429, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("resource_exhausted"));

    let (code, _) = post(addr, "EmptyCall", "application/json", b"{}");
    assert_eq!(code, 200, "still serving");
}

/// Connect's gzip: a gzipped request is read, an answer the handler lets
/// the service gzip is gzipped for a caller that accepts it, and another
/// compression is refused.
#[test]
fn connect_unary_gzip() {
    use flate2::{read::GzDecoder, write::GzEncoder, Compression};
    let server = ServerProcess::start();
    let addr = server.addr;
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(br#"{"responseSize": 4000, "responseCompressed": {"value": true}}"#)
        .unwrap();
    let body = encoder.finish().unwrap();
    let request = |encoding: &str| {
        format!(
            "POST /{METHOD}/UnaryCall HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
             content-encoding: {encoding}\r\naccept-encoding: br, gzip\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
    };
    let raw = raw_http(addr, &request("gzip"), &body);
    assert!(
        raw.starts_with("http/1.1 200") && raw.contains("content-encoding: gzip"),
        "{raw}"
    );
    let (code, answer) = http(addr, &request("gzip"), &body);
    assert_eq!(code, 200);
    let mut json = String::new();
    GzDecoder::new(answer.as_slice())
        .read_to_string(&mut json)
        .expect("gunzips");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    // 4000 zero bytes, in base64.
    assert_eq!(json["payload"]["body"].as_str().map(str::len), Some(5336), "{json}");

    let (code, answer) = http(addr, &request("br"), &body);
    assert_eq!(code, 501, "{}", String::from_utf8_lossy(&answer));
    assert!(String::from_utf8_lossy(&answer).contains(r#""code":"unimplemented""#));

    // A stream's answers of 1 KiB or more, gzipped for a caller that
    // accepts it; smaller ones as they are.
    let json = br#"{"responseParameters": [{"size": 4000}, {"size": 10}]}"#;
    let mut envelope = vec![0, 0, 0, 0, json.len() as u8];
    envelope.extend_from_slice(json);
    let request = format!(
        "POST /{METHOD}/StreamingOutputCall HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/connect+json\r\n\
         connect-accept-encoding: gzip\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        envelope.len()
    );
    let raw = raw_http(addr, &request, &envelope);
    assert!(raw.contains("connect-content-encoding: gzip"), "{raw}");
    let (code, answer) = http(addr, &request, &envelope);
    assert_eq!(code, 200);
    let answer = dechunk(&answer);
    let first_len = u32::from_be_bytes([answer[1], answer[2], answer[3], answer[4]]) as usize;
    assert_eq!(answer[0], 1, "the large answer is compressed");
    let mut json = String::new();
    GzDecoder::new(&answer[5..5 + first_len])
        .read_to_string(&mut json)
        .expect("gunzips");
    assert!(json.contains("payload"), "{json}");
    assert_eq!(answer[5 + first_len], 0, "the small one is not");
}

/// gRPC-Web's text framing (base64, as browsers without binary fetch
/// bodies send): asked for with `accept` (as grpc-web's JavaScript client
/// does), the answer comes back base64 too, trailers included.
#[test]
fn grpc_web_text_framing() {
    let server = ServerProcess::start();
    let addr = server.addr;
    // One frame: SimpleRequest { response_size: 2 }.
    let frame = base64_url(&[0, 0, 0, 0, 2, 0x10, 0x02])
        .replace('-', "+")
        .replace('_', "/");
    let body = format!("{frame}{}", "=".repeat((4 - frame.len() % 4) % 4));
    let request = format!(
        "POST /{METHOD}/UnaryCall HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/grpc-web-text\r\n\
         accept: application/grpc-web-text\r\nx-grpc-web: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let raw = raw_http(addr, &request, body.as_bytes());
    assert!(raw.starts_with("http/1.1 200"), "{raw}");
    assert!(raw.contains("content-type: application/grpc-web-text"), "{raw}");
    // The message frame, [0, 0,0,0,6, 0a 04 12 02 00 00], is "AAAAAAYKBBICAAA="
    // and the trailers' frame (flag 0x80) starts "gAAAA" (`raw` is lower case).
    assert!(raw.contains("aaaaaaykbbicaaa="), "{raw}");
    assert!(raw.contains("gaaaa"), "{raw}");
}

/// A chunked HTTP/1.1 body's data.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut data = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&body[..end]).unwrap().trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        data.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 4 + size..];
    }
    data
}

/// A whole HTTP/1.1 answer as text.
fn raw_http(addr: SocketAddr, request: &str, body: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    String::from_utf8_lossy(&response).to_lowercase()
}

/// The sign-up service's invalid request and the rule ids it breaks.
const INVALID_SIGNUP: &str = r#"{"email": "nope", "age": 7, "password": "x", "passwordConfirmation": "y"}"#;
const SIGNUP_RULES: [&str; 6] = [
    "passwords_match",
    "string.email",
    "string.min_len",
    "uint32.gte_lte",
    "required",
    "string.min_len",
];

#[test]
fn buf_curl_sees_invalid_requests_refused_over_three_protocols() {
    use fastrs::Message as _;
    let Some(buf) = buf("buf curl on a service with validation") else {
        return;
    };
    let server = ServerProcess::start();
    let url = format!("http://{}/acme.signup.v1.Signup/CreateAccount", server.addr);
    for protocol in ["grpc", "grpcweb", "connect"] {
        let out = curl(&buf, &["--protocol", protocol, "--data", INVALID_SIGNUP, &url]);
        assert!(!out.status.success(), "{protocol}");
        let error: serde_json::Value = serde_json::from_slice(&out.stderr).expect("an error in JSON");
        assert_eq!(error["code"], "invalid_argument", "{protocol}: {error}");
        let message = error["message"].as_str().unwrap_or("");
        assert!(
            message.contains("email: must be a valid email address"),
            "{protocol}: {message}"
        );
        let detail = &error["details"][0];
        assert_eq!(detail["type"], "buf.validate.Violations", "{protocol}: {error}");
        let value = detail["value"].as_str().expect("a base64 value");
        let bytes = base64_decode(value);
        let violations = fastrs::validate::Violations::decode(&bytes).expect("Violations");
        let ids: Vec<&str> = violations
            .violations
            .iter()
            .map(|v| v.rule_id.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(ids, SIGNUP_RULES, "{protocol}");
        // A valid request goes through.
        let valid = r#"{"email": "ada@example.com", "name": "Ada", "age": 36,
            "address": {"line1": "1 Sq", "city": "London", "country": "GB"},
            "password": "correct horse", "passwordConfirmation": "correct horse"}"#;
        let out = curl(&buf, &["--protocol", protocol, "--data", valid, &url]);
        assert!(
            out.status.success(),
            "{protocol}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Standard base64, with or without padding.
fn base64_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut bits = 0u32;
    let mut n = 0;
    for c in text.bytes().filter(|c| *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            _ => 63,
        };
        bits = bits << 6 | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out
}
