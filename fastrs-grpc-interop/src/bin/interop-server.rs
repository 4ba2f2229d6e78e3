//! `interop-server --port PORT`: serves `grpc.testing.TestService` on
//! 127.0.0.1:PORT until killed, with gRPC's health and reflection services
//! beside it, over gRPC, gRPC-Web and Connect (binary and JSON), on
//! plaintext HTTP/2 and HTTP/1.1. Prints `listening on ADDR` once it
//! accepts calls (`--port 0` picks a free port).

use std::process::ExitCode;

use fastrs_grpc_interop::{flag, server};

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port = match flag(&args, "--port").map(|p| p.parse::<u16>()) {
        Some(Ok(port)) => port,
        _ => {
            eprintln!("usage: interop-server --port PORT");
            return ExitCode::from(2);
        }
    };
    let (listener, addr) = match server::bind(port).await {
        Ok(bound) => bound,
        Err(e) => {
            eprintln!("interop-server: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("listening on {addr}");
    if let Err(e) = fastrs_grpc_interop::serve_with_standard_services(listener).await {
        eprintln!("interop-server: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
