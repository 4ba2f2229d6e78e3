//! The web rows: one fastrs server serving gRPC, Connect and gRPC-Web on
//! one port (`ConnectLayer` and tonic-web's layer over the same tonic
//! routes), called over each protocol with the same payloads. CPU time per
//! call is against tonic gRPC on that same server.

use std::net::SocketAddr;

use fastrs_tonic::connect::{ConnectClient, ConnectLayer};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tonic_web::{GrpcWebCall, GrpcWebClientService};

use super::fast::bench::grpc::bench_client::BenchClient;
use super::fast::bench::grpc::bench_connect_client::BenchConnectClient;
use super::fast::bench::grpc::StreamRequest;
use super::fast::bench::page::Page;
use super::{fastrs_decode, incoming, measure, with_fastrs, Round};
use fastrs_bench::data::{self, Shape};

/// Serves gRPC, Connect (binary and JSON) and gRPC-Web on `listener`, over
/// HTTP/2 and HTTP/1.1, until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) {
    let mut pool = fastrs::reflect::DescriptorPool::new();
    pool.add_described::<StreamRequest>().expect("the bench schema");
    tonic::transport::Server::builder()
        .accept_http1(true)
        .layer(ConnectLayer::new(pool))
        .layer(tonic_web::GrpcWebLayer::new())
        .add_service(with_fastrs::service())
        .serve_with_incoming(incoming(listener))
        .await
        .expect("serves");
}

/// The clients of every protocol, and the page they send.
pub struct Clients {
    grpc: BenchClient<tonic::transport::Channel>,
    connect: BenchConnectClient,
    connect_json: BenchConnectClient,
    grpc_web: BenchClient<
        GrpcWebClientService<hyper_util::client::legacy::Client<HttpConnector, GrpcWebCall<tonic::body::Body>>>,
    >,
    page: Page,
}

impl Clients {
    pub async fn connect(addr: SocketAddr) -> Clients {
        let base = format!("http://{addr}");
        let mut pool = fastrs::reflect::DescriptorPool::new();
        pool.add_described::<StreamRequest>().expect("the bench schema");
        let http1 = hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build_http();
        let origin = base.parse().expect("a URI");
        Clients {
            grpc: BenchClient::connect(base.clone()).await.expect("connects"),
            connect: BenchConnectClient::new(ConnectClient::new(&base)),
            connect_json: BenchConnectClient::new(ConnectClient::new(&base).json(pool)),
            grpc_web: BenchClient::with_origin(GrpcWebClientService::new(http1), origin),
            page: fastrs_decode(&data::page_message(Shape::Fixed)),
        }
    }
}

/// The unary and streaming workloads, per protocol.
pub const ROWS: [&str; 6] = [
    "unary echo, gRPC (tonic, HTTP/2)",
    "unary echo, Connect binary (HTTP/1.1)",
    "unary echo, Connect JSON (HTTP/1.1)",
    "unary echo, gRPC-Web binary (HTTP/1.1)",
    "server streaming, gRPC (tonic, HTTP/2)",
    "server streaming, Connect binary (HTTP/1.1)",
];

/// One round of every row, `calls` unary calls and `streams` streams of
/// `per_stream` wide payloads each.
pub async fn round(clients: &Clients, calls: u32, streams: u32, per_stream: i32) -> [Round; 6] {
    let page = &clients.page;
    let check = |back: Page| assert_eq!(back.items.len(), 50);
    let grpc = measure(calls, None, || {
        let mut client = clients.grpc.clone();
        async move { check(client.echo(page.clone()).await.expect("echo").into_inner()) }
    })
    .await;
    let connect = measure(calls, None, || async {
        check(clients.connect.echo(page.clone()).await.expect("echo").into_inner());
    })
    .await;
    let connect_json = measure(calls, None, || async {
        check(
            clients
                .connect_json
                .echo(page.clone())
                .await
                .expect("echo")
                .into_inner(),
        );
    })
    .await;
    let grpc_web = measure(calls, None, || {
        let mut client = clients.grpc_web.clone();
        async move { check(client.echo(page.clone()).await.expect("echo").into_inner()) }
    })
    .await;
    let request = || StreamRequest {
        count: per_stream,
        ..Default::default()
    };
    let grpc_stream = measure(streams, None, || {
        let mut client = clients.grpc.clone();
        async move {
            let answers = client.stream(request()).await.expect("stream").into_inner();
            assert_eq!(count(answers).await, per_stream);
        }
    })
    .await;
    let connect_stream = measure(streams, None, || async {
        let answers = clients.connect.stream(request()).await.expect("stream").into_inner();
        assert_eq!(count(answers).await, per_stream);
    })
    .await;
    [grpc, connect, connect_json, grpc_web, grpc_stream, connect_stream]
}

/// Reads a stream of answers to its end; how many there were.
async fn count<T, S>(mut answers: S) -> i32
where
    S: tonic::codegen::tokio_stream::Stream<Item = Result<T, tonic::Status>> + Unpin,
{
    use tonic::codegen::tokio_stream::StreamExt as _;
    let mut got = 0;
    while let Some(answer) = answers.next().await {
        std::hint::black_box(&answer.expect("a message"));
        got += 1;
    }
    got
}
