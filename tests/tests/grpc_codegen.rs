//! Generated gRPC services (`Builder::grpc()`): what the code says, beyond
//! compiling warning-free (the interop crate and the example compile it
//! with `-D warnings`).

use std::path::Path;

fn generate(grpc: bool) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../target/e2e/grpc-{}-{grpc}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let proto = dir.join("svc.proto");
    std::fs::write(
        &proto,
        r#"syntax = "proto3";
package acme.svc;
message Ping { string text = 1; }
// Answers pings.
service Pinger {
  // One ping, one pong.
  rpc Ping(acme.svc.Ping) returns (acme.svc.Ping);
  // The old way.
  rpc OldPing(acme.svc.Ping) returns (acme.svc.Ping) { option deprecated = true; }
  rpc Pings(stream acme.svc.Ping) returns (stream acme.svc.Ping);
}
"#,
    )
    .unwrap();
    let mut builder = protoc_gen_fastrs::Builder::new();
    if grpc {
        builder = builder.grpc();
    }
    let files = builder.generate(&[&proto], &[&dir]).unwrap();
    files.into_iter().map(|f| f.content).collect()
}

#[test]
fn services_get_a_client_and_a_server_with_docs_and_deprecations() {
    let code = generate(true);
    for want in [
        "pub mod pinger_client",
        "pub struct PingerClient<T>",
        "pub mod pinger_server",
        "pub trait Pinger:",
        "pub struct PingerServer<T>",
        "\"/acme.svc.Pinger/OldPing\"",
        "::fastrs_tonic::FastrsCodec::default()",
        "/// Answers pings.",
        "/// One ping, one pong.",
        "type PingsStream:",
    ] {
        assert!(code.contains(want), "missing {want:?}");
    }
    let old = code.find("pub async fn old_ping").expect("the client method");
    assert!(
        code[..old].trim_end().ends_with("#[deprecated]"),
        "OldPing is not marked deprecated"
    );
}

#[test]
fn no_service_code_without_the_option() {
    let code = generate(false);
    assert!(!code.contains("tonic"), "service code generated unasked");
}
