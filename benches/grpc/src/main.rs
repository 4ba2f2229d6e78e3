//! `make bench`'s gRPC rows: the same service over tonic, once with fastrs
//! messages (`fastrs-tonic`) and once with prost's (`tonic-prost`), in one
//! run, over loopback TCP with one call in flight. Twice: client and server
//! in one process (one tokio runtime, two worker threads: CPU time and
//! allocations count both ends), and the server in a process of its own
//! (this binary, `serve fastrs|prost`; CPU time adds the server's from
//! `/proc`, allocations are the client's).
//!
//! Workloads: unary echo of the page payload (50 items), server streaming
//! of 1,000 wide payloads per call, and an OpenTelemetry trace receiver
//! (`TraceService/Export`, as examples/otlp serves it) taking exports of
//! 100 spans. Rounds alternate the two
//! libraries; the table gives medians.
//!
//! A second table puts the fastrs server behind the Connect and gRPC-Web
//! layers and calls it over each protocol ([`web`]), in one process.
//!
//! Usage: `fastrs-bench-grpc [--rounds N] [--out FILE]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fastrs_bench::data::{self, Shape};

mod peer;
mod web;

#[allow(clippy::all, dead_code, missing_docs)]
mod fast {
    include!(concat!(env!("OUT_DIR"), "/fastrs/mod.rs"));
}

#[allow(clippy::all, dead_code, missing_docs)]
mod pb {
    include!(concat!(env!("OUT_DIR"), "/prost/mod.rs"));
}

/// Counts allocations (and reallocations), to report them per call.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// CPU time of the whole process (user + system), in microseconds.
fn cpu_micros() -> u64 {
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid start.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    micros(usage.ru_utime) + micros(usage.ru_stime)
}

/// CPU time of process `pid` (user + system), in microseconds, from
/// `/proc` (clock-tick resolution: 10 ms).
fn cpu_micros_of(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the server's /proc/PID/stat");
    // Fields after the command name (which ends with the last ')'): utime
    // and stime are the 12th and 13th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("a stat line")
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // SAFETY: sysconf reads a constant of the system.
    let per_sec = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    ticks * 1_000_000 / per_sec
}

/// One measured round: calls, and what they took.
#[derive(Clone, Copy, Default)]
struct Round {
    calls_per_sec: f64,
    cpu_us_per_call: f64,
    allocs_per_call: f64,
}

/// Times `calls` sequential runs of `call`; CPU time adds that of the
/// server process, if the server runs in one.
async fn measure<F, Fut>(calls: u32, server: Option<u32>, mut call: F) -> Round
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let cpu_now = || cpu_micros() + server.map_or(0, cpu_micros_of);
    let (start, cpu, allocs) = (Instant::now(), cpu_now(), ALLOCATIONS.load(Ordering::Relaxed));
    for _ in 0..calls {
        call().await;
    }
    let wall = start.elapsed().as_secs_f64();
    let n = f64::from(calls);
    Round {
        calls_per_sec: n / wall,
        cpu_us_per_call: (cpu_now() - cpu) as f64 / n,
        allocs_per_call: (ALLOCATIONS.load(Ordering::Relaxed) - allocs) as f64 / n,
    }
}

/// The server and client of one library: `$root` is its generated code,
/// `$decode` reads a payload's bytes into its message types.
macro_rules! library {
    ($name:ident, $root:ident, $decode:path) => {
        #[allow(clippy::needless_update)] // prost's structs: nothing to fill
        mod $name {
            use super::$root::bench::grpc::bench_client::BenchClient;
            use super::$root::bench::grpc::bench_server::{Bench, BenchServer};
            use super::$root::bench::grpc::StreamRequest;
            use super::$root::bench::page::Page;
            use super::$root::bench::telemetry::ExportRequest;
            use super::$root::bench::wide::Wide;
            use super::$root::opentelemetry::proto::collector::trace::v1 as otlp;
            use super::*;
            use otlp::trace_service_client::TraceServiceClient;
            use otlp::trace_service_server::{TraceService, TraceServiceServer};
            use tonic::{Request, Response, Status};

            pub struct Service {
                wide: Wide,
            }

            type Wides = tokio_stream::Iter<
                std::iter::Map<std::ops::Range<i32>, Box<dyn Fn(i32) -> Result<Wide, Status> + Send + Sync>>,
            >;

            #[tonic::async_trait]
            impl Bench for Service {
                async fn echo(&self, request: Request<Page>) -> Result<Response<Page>, Status> {
                    Ok(Response::new(request.into_inner()))
                }

                type StreamStream = Wides;

                async fn stream(&self, request: Request<StreamRequest>) -> Result<Response<Wides>, Status> {
                    let wide = self.wide.clone();
                    let each: Box<dyn Fn(i32) -> Result<Wide, Status> + Send + Sync> =
                        Box::new(move |_| Ok(wide.clone()));
                    Ok(Response::new(tokio_stream::iter(
                        (0..request.into_inner().count).map(each),
                    )))
                }
            }

            /// The OTLP trace receiver: counts the spans of each export.
            pub struct Receiver;

            #[tonic::async_trait]
            impl TraceService for Receiver {
                async fn export(
                    &self,
                    request: Request<ExportRequest>,
                ) -> Result<Response<otlp::ExportTraceServiceResponse>, Status> {
                    let export = request.into_inner();
                    let mut spans = 0;
                    for resource in &export.resource_spans {
                        for scope in &resource.scope_spans {
                            spans += scope.spans.len();
                        }
                    }
                    std::hint::black_box(spans);
                    Ok(Response::new(otlp::ExportTraceServiceResponse::default()))
                }
            }

            /// The service, ready to serve.
            pub fn service() -> BenchServer<Service> {
                let wide: Wide = $decode(&data::wide_message(Shape::Fixed));
                BenchServer::new(Service { wide }).max_encoding_message_size(usize::MAX)
            }

            /// Serves on `listener` until the process ends.
            pub async fn serve(listener: tokio::net::TcpListener) {
                tonic::transport::Server::builder()
                    .add_service(service())
                    .add_service(TraceServiceServer::new(Receiver))
                    .serve_with_incoming(incoming(listener))
                    .await
                    .expect("serves");
            }

            /// A client of the server at `addr`, and the page it echoes.
            pub async fn connect(addr: SocketAddr) -> (BenchClient<tonic::transport::Channel>, Page) {
                let page: Page = $decode(&data::page_message(Shape::Fixed));
                let client = BenchClient::connect(format!("http://{addr}"))
                    .await
                    .expect("connects");
                (client, page)
            }

            /// `calls` unary echoes of the page.
            pub async fn echo(
                client: &mut BenchClient<tonic::transport::Channel>,
                page: &Page,
                calls: u32,
                server: Option<u32>,
            ) -> Round {
                measure(calls, server, || {
                    let mut client = client.clone();
                    let page = page.clone();
                    async move {
                        let back = client.echo(page).await.expect("echo").into_inner();
                        assert_eq!(back.items.len(), 50);
                    }
                })
                .await
            }

            /// `calls` trace exports, as an OpenTelemetry exporter sends them.
            pub async fn export(addr: SocketAddr, calls: u32, server: Option<u32>) -> Round {
                let export: ExportRequest = $decode(&data::telemetry_export(Shape::Fixed));
                let client = TraceServiceClient::connect(format!("http://{addr}"))
                    .await
                    .expect("connects");
                measure(calls, server, || {
                    let mut client = client.clone();
                    let export = export.clone();
                    async move {
                        client.export(export).await.expect("export");
                    }
                })
                .await
            }

            /// `calls` streams of `per_call` wide payloads.
            pub async fn stream(
                client: &mut BenchClient<tonic::transport::Channel>,
                per_call: i32,
                calls: u32,
                server: Option<u32>,
            ) -> Round {
                measure(calls, server, || {
                    let mut client = client.clone();
                    async move {
                        let request = StreamRequest {
                            count: per_call,
                            ..Default::default()
                        };
                        let mut stream = client.stream(request).await.expect("stream").into_inner();
                        let mut got = 0;
                        while let Some(w) = stream.message().await.expect("a message") {
                            std::hint::black_box(&w);
                            got += 1;
                        }
                        assert_eq!(got, per_call);
                    }
                })
                .await
            }
        }
    };
}

fn fastrs_decode<M: fastrs::Message>(bytes: &[u8]) -> M {
    M::decode(bytes).expect("a valid payload")
}

fn prost_decode<M: prost::Message + Default>(bytes: &[u8]) -> M {
    M::decode(bytes).expect("a valid payload")
}

library!(with_fastrs, fast, fastrs_decode);
library!(with_prost, pb, prost_decode);

/// Accepted connections with TCP_NODELAY: without it small answers wait
/// for delayed ACKs (40 ms), as they would in no real deployment.
fn incoming(listener: tokio::net::TcpListener) -> tonic::transport::server::TcpIncoming {
    tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The medians of each metric over `rounds`.
fn medians(rounds: &[Round]) -> Round {
    Round {
        calls_per_sec: median(rounds.iter().map(|r| r.calls_per_sec).collect()),
        cpu_us_per_call: median(rounds.iter().map(|r| r.cpu_us_per_call).collect()),
        allocs_per_call: median(rounds.iter().map(|r| r.allocs_per_call).collect()),
    }
}

/// Where the server runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    OneProcess,
    TwoProcesses,
}

/// A server process (this binary, `serve LIB`), killed when dropped.
struct ServerProcess(std::process::Child, SocketAddr);

impl ServerProcess {
    fn start(lib: &str) -> ServerProcess {
        use std::io::BufRead as _;
        let exe = std::env::current_exe().expect("this binary");
        let mut child = std::process::Command::new(exe)
            .args(["serve", lib])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the server's address");
        let addr = line.trim().parse().expect("an address");
        ServerProcess(child, addr)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `serve LIB`: the server alone, printing its address.
async fn serve_alone(lib: &str) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
    println!("{}", listener.local_addr().expect("bound"));
    match lib {
        "fastrs" => with_fastrs::serve(listener).await,
        _ => with_prost::serve(listener).await,
    }
}

/// Both libraries' rows for one placement: (workload, fastrs, prost).
async fn run(placement: Placement, rounds: usize) -> [(&'static str, Round, Round); 3] {
    let (echo_calls, stream_calls, per_stream, exports) = (2_000, 10, 1_000, 500);
    let mut processes = Vec::new();
    let (faddr, paddr, fpid, ppid) = match placement {
        Placement::OneProcess => {
            let bind = || async { tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds") };
            let (fl, pl) = (bind().await, bind().await);
            let addrs = (fl.local_addr().expect("bound"), pl.local_addr().expect("bound"));
            tokio::spawn(with_fastrs::serve(fl));
            tokio::spawn(with_prost::serve(pl));
            (addrs.0, addrs.1, None, None)
        }
        Placement::TwoProcesses => {
            let (f, p) = (ServerProcess::start("fastrs"), ServerProcess::start("prost"));
            let ids = (f.1, p.1, Some(f.0.id()), Some(p.0.id()));
            processes.push(f);
            processes.push(p);
            ids
        }
    };
    let (mut fc, fpage) = with_fastrs::connect(faddr).await;
    let (mut pc, ppage) = with_prost::connect(paddr).await;
    // Warm up connections, allocators and caches.
    with_fastrs::echo(&mut fc, &fpage, 200, fpid).await;
    with_prost::echo(&mut pc, &ppage, 200, ppid).await;
    with_fastrs::export(faddr, 50, fpid).await;
    with_prost::export(paddr, 50, ppid).await;
    let (mut echo, mut stream) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
    let mut export = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        export.0.push(with_fastrs::export(faddr, exports, fpid).await);
        export.1.push(with_prost::export(paddr, exports, ppid).await);
        echo.0.push(with_fastrs::echo(&mut fc, &fpage, echo_calls, fpid).await);
        echo.1.push(with_prost::echo(&mut pc, &ppage, echo_calls, ppid).await);
        stream
            .0
            .push(with_fastrs::stream(&mut fc, per_stream, stream_calls, fpid).await);
        stream
            .1
            .push(with_prost::stream(&mut pc, per_stream, stream_calls, ppid).await);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(processes);
    [
        ("unary echo, page of 50 items", medians(&echo.0), medians(&echo.1)),
        (
            "server streaming, 1,000 wide payloads per call",
            medians(&stream.0),
            medians(&stream.1),
        ),
        (
            "OTLP trace export (100 spans), unary, to a receiver",
            medians(&export.0),
            medians(&export.1),
        ),
    ]
}

/// The web table's rows: medians of each protocol's rounds, and CPU per
/// call against tonic gRPC's; then connectrpc's rows, the peer of the
/// Connect ones.
async fn run_web(rounds: usize) -> String {
    let bind = || async { tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds") };
    let (ours, theirs) = (bind().await, bind().await);
    let (addr, peer_addr) = (ours.local_addr().expect("bound"), theirs.local_addr().expect("bound"));
    tokio::spawn(web::serve(ours));
    tokio::spawn(peer::serve(theirs));
    let clients = web::Clients::connect(addr).await;
    let (peer, page) = peer::client(peer_addr);
    // Warm up.
    web::round(&clients, 200, 2, 100).await;
    peer::round(&peer, &page, 200, 2, 100).await;
    let (mut all, mut peers): (Vec<[Round; 6]>, Vec<[Round; 2]>) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        all.push(web::round(&clients, 2_000, 10, 1_000).await);
        peers.push(peer::round(&peer, &page, 2_000, 10, 1_000).await);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let column = |i: usize| medians(&all.iter().map(|r| r[i]).collect::<Vec<_>>());
    let peer_column = |i: usize| medians(&peers.iter().map(|r| r[i]).collect::<Vec<_>>());
    let rows: Vec<Round> = (0..6).map(column).collect();
    let mut table = String::from(
        "| workload | calls/s | CPU µs/call | CPU ÷ tonic gRPC | allocations/call |\n|---|---:|---:|---:|---:|\n",
    );
    let named = web::ROWS.iter().copied().zip(rows.iter().copied()).chain([
        (
            "unary echo, connectrpc + buffa, Connect binary (HTTP/1.1)",
            peer_column(0),
        ),
        (
            "server streaming, connectrpc + buffa, Connect binary (HTTP/1.1)",
            peer_column(1),
        ),
    ]);
    for (name, row) in named {
        // Unary rows against the gRPC unary row, streams against its stream.
        let base = if name.starts_with("unary") { rows[0] } else { rows[4] };
        table.push_str(&format!(
            "| {name} | {:.0} | {:.1} | **{:.2}** | {:.0} |\n",
            row.calls_per_sec,
            row.cpu_us_per_call,
            row.cpu_us_per_call / base.cpu_us_per_call,
            row.allocs_per_call
        ));
    }
    table
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    if args.first().map(String::as_str) == Some("serve") {
        rt.block_on(serve_alone(args.get(1).map_or("fastrs", String::as_str)));
        return;
    }
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let rounds: usize = flag("--rounds").map_or(5, |r| r.parse().expect("a number of rounds"));
    let mut table = String::from(
        "| workload | processes | calls/s fastrs | calls/s prost | CPU µs/call fastrs | CPU µs/call prost | CPU fastrs ÷ prost | allocations/call fastrs / prost |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (placement, label) in [
        (Placement::OneProcess, "one"),
        (Placement::TwoProcesses, "two (allocations: client)"),
    ] {
        for (name, f, p) in rt.block_on(run(placement, rounds)) {
            table.push_str(&format!(
                "| {name} | {label} | {:.0} | {:.0} | {:.1} | {:.1} | **{:.2}** | {:.0} / {:.0} |\n",
                f.calls_per_sec,
                p.calls_per_sec,
                f.cpu_us_per_call,
                p.cpu_us_per_call,
                f.cpu_us_per_call / p.cpu_us_per_call,
                f.allocs_per_call,
                p.allocs_per_call
            ));
        }
    }
    table.push_str(&format!(
        "\nMedians of {rounds} alternating rounds (2000 echo calls, 10 streams of 1000 and 500 trace exports per round) over loopback TCP, one call in flight, tokio with 2 worker threads per process. One process: client and server share it; CPU time and allocations count both ends. Two: the server runs alone; CPU time adds the server's (from /proc, 10 ms ticks), allocations are the client's.\n"
    ));
    table.push_str("\n### Connect and gRPC-Web\n\n");
    table.push_str(&rt.block_on(run_web(rounds)));
    table.push_str(&format!(
        "\nOne fastrs server with `ConnectLayer` and tonic-web's layer over its tonic routes, called over each protocol in one process (CPU time and allocations count both ends); medians of {rounds} rounds of 2000 unary calls and 10 streams of 1000 wide payloads. Connect and gRPC-Web clients use HTTP/1.1 (hyper's client), as browsers and curl do; JSON is fastrs's, by the descriptors. The connectrpc rows: connectrpc 0.9's server and client with buffa's messages, same payloads, same process and rounds; its client's view answers are made owned messages, as the other clients decode theirs.\n"
    ));
    print!("{table}");
    if let Some(path) = flag("--out") {
        std::fs::write(&path, &table).expect("writes the table");
        eprintln!("wrote {path}");
    }
}
