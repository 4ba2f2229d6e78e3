//! `interop-client --server_host HOST --server_port PORT --test_case NAME`:
//! runs one interop case against a server over plaintext HTTP/2 and exits
//! 0 only if every check passed.

use std::process::ExitCode;
use std::time::Duration;

use fastrs_grpc_interop::{cases, flag, CASES};

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let host = flag(&args, "--server_host").unwrap_or("127.0.0.1");
    let (Some(port), Some(case)) = (flag(&args, "--server_port"), flag(&args, "--test_case")) else {
        eprintln!("usage: interop-client --server_host HOST --server_port PORT --test_case NAME");
        eprintln!("cases: {}", CASES.join(", "));
        return ExitCode::from(2);
    };
    let endpoint = match tonic::transport::Endpoint::from_shared(format!("http://{host}:{port}")) {
        Ok(e) => e.connect_timeout(Duration::from_secs(5)),
        Err(e) => {
            eprintln!("interop-client: bad address {host}:{port}: {e}");
            return ExitCode::from(2);
        }
    };
    let channel = match endpoint.connect().await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("interop-client: cannot connect to {host}:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match cases::run(case, channel).await {
        Ok(()) => {
            println!("{case}: passed");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{case}: FAILED: {why}");
            ExitCode::FAILURE
        }
    }
}
