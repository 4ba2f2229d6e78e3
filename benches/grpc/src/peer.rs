//! The peer of the Connect rows: connectrpc serving and calling the same
//! service with buffa's messages, over Connect's binary codec on HTTP/1.1,
//! in the same process and run as the fastrs rows.

use std::net::SocketAddr;
use std::sync::Arc;

use buffa::MessageView as _;
use connectrpc::client::{ClientConfig, HttpClient};
use connectrpc::{Encodable, RequestContext, Response, Router, ServiceRequest, ServiceResult, ServiceStream};
use fastrs_bench::data::{self, Shape};

use super::{measure, Round};

/// connectrpc-build's output: buffa's messages and connectrpc's service.
#[allow(clippy::all, dead_code, missing_docs)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/_connectrpc.rs"));
}

use generated::bench::grpc::{Bench, BenchClient, BenchExt as _, StreamRequest};
use generated::bench::page::Page;
use generated::bench::wide::Wide;

/// The service: the same answers as the tonic services'.
struct Service {
    wide: Wide,
}

impl Bench for Service {
    async fn echo<'a>(
        &'a self,
        _: RequestContext,
        request: ServiceRequest<'_, Page>,
    ) -> ServiceResult<impl Encodable<Page> + Send + use<'a>> {
        Response::ok(request.to_owned_message())
    }

    async fn stream(
        &self,
        _: RequestContext,
        request: ServiceRequest<'_, StreamRequest>,
    ) -> ServiceResult<ServiceStream<impl Encodable<Wide> + Send + use<>>> {
        let wide = self.wide.clone();
        let answers = (0..request.count).map(move |_| Ok(wide.clone()));
        Response::stream_ok(tokio_stream::iter(answers))
    }
}

fn decode<M: buffa::Message>(bytes: &[u8]) -> M {
    M::decode_from_slice(bytes).expect("a valid payload")
}

/// Serves on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) {
    let service = Arc::new(Service {
        wide: decode(&data::wide_message(Shape::Fixed)),
    });
    let router = service.register(Router::new());
    connectrpc::Server::from_listener(listener)
        .serve(router)
        .await
        .expect("serves");
}

/// A client of the server at `addr` (HTTP/1.1), and the page it echoes.
pub fn client(addr: SocketAddr) -> (BenchClient<HttpClient>, Page) {
    let config = ClientConfig::new(format!("http://{addr}").parse().expect("a URI"));
    let page = decode(&data::page_message(Shape::Fixed));
    (BenchClient::new(HttpClient::plaintext(), config), page)
}

/// One round: `calls` unary echoes and `streams` streams of `per_stream`
/// wide payloads. Answers are views; each is made an owned message, as
/// the fastrs and tonic clients decode theirs.
pub async fn round(
    client: &BenchClient<HttpClient>,
    page: &Page,
    calls: u32,
    streams: u32,
    per_stream: i32,
) -> [Round; 2] {
    let echo = measure(calls, None, || async {
        let answer = client.echo(page.clone()).await.expect("echo");
        let back: Page = answer.view().to_owned_message().expect("an owned page");
        assert_eq!(back.items.len(), 50);
    })
    .await;
    let stream = measure(streams, None, || async {
        let request = StreamRequest {
            count: per_stream,
            ..Default::default()
        };
        let mut answers = client.stream(request).await.expect("stream");
        let mut got = 0;
        while let Some(wide) = answers.message().await.expect("a message") {
            std::hint::black_box(wide.to_owned_message());
            got += 1;
        }
        assert_eq!(got, per_stream);
    })
    .await;
    [echo, stream]
}
