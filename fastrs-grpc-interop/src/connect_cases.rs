//! The interop cases over Connect, with the generated Connect client
//! (`TestServiceConnectClient`): those of [`super::cases`] that the
//! Connect protocol has (no gRPC compression probes; cancelling is
//! dropping the call, which the client cannot check), with the same
//! checks. Where the interop description streams both ways only to have a
//! stream (statuses, metadata), a server stream does, so that the case
//! runs over HTTP/1.1 too: Connect has bidi streams on HTTP/2 only.

use std::time::Duration;

use fastrs_tonic::connect::ConnectClient;
use tokio_stream::StreamExt as _;
use tonic::metadata::MetadataValue;
use tonic::{Code, Request, Status};

use super::cases::{
    body_len, check, check_aggregate, check_metadata, check_streamed, client_stream_requests, duplex_request,
    expect_code, expect_echoed, failed, large_request, ping_pong_requests, play_ping_pong, server_stream_request,
    with_metadata, Outcome,
};
use super::pb::test_service_connect_client::TestServiceConnectClient as Client;
use super::pb::unimplemented_service_connect_client::UnimplementedServiceConnectClient;
use super::pb::{self, EchoStatus};
use super::server::ECHO_DETAILS;

/// Every case this module runs; [`BIDI`] need HTTP/2.
pub const CASES: [&str; 13] = [
    "empty_unary",
    "large_unary",
    "client_streaming",
    "server_streaming",
    "ping_pong",
    "empty_stream",
    "status_code_and_message",
    "special_status_message",
    "unimplemented_method",
    "unimplemented_service",
    "custom_metadata",
    "timeout_on_sleeping_server",
    "error_details",
];

/// The cases that call a bidi-streaming method.
pub const BIDI: [&str; 3] = ["ping_pong", "empty_stream", "timeout_on_sleeping_server"];

/// Runs case `name` through `client`.
///
/// # Errors
/// The first check that failed, or an unknown case name.
pub async fn run(name: &str, client: ConnectClient) -> Outcome {
    let test = Client::new(client.clone());
    match name {
        "empty_unary" => {
            let r = test.empty_call(pb::Empty::default()).await.map_err(failed)?;
            check(r.into_inner() == pb::Empty::default(), || "a non-empty answer".into())
        }
        "large_unary" => {
            let r = test.unary_call(large_request()?).await.map_err(failed)?.into_inner();
            let len = body_len(r.payload.as_ref());
            check(len == 314_159, || format!("payload of {len} bytes, expected 314159"))
        }
        "client_streaming" => client_streaming(&test).await,
        "server_streaming" => server_streaming(&test).await,
        "ping_pong" => ping_pong(&test).await,
        "empty_stream" => {
            let requests = tokio_stream::iter(Vec::<pb::StreamingOutputCallRequest>::new());
            let mut answers = test.full_duplex_call(requests).await.map_err(failed)?.into_inner();
            check(answers.next().await.is_none(), || "answers to no requests".into())
        }
        "status_code_and_message" => echo_status(&test, "test status message").await,
        "special_status_message" => {
            let message = "\t\ntest with whitespace\r\nand Unicode BMP \u{263A} and non-BMP \u{1F608}\t\n";
            echo_status(&test, message).await
        }
        "unimplemented_method" => {
            let r = test.unimplemented_call(pb::Empty::default()).await;
            expect_code(r.map(|_| ()), Code::Unimplemented)
        }
        "unimplemented_service" => {
            let other = UnimplementedServiceConnectClient::new(client);
            let r = other.unimplemented_call(pb::Empty::default()).await;
            expect_code(r.map(|_| ()), Code::Unimplemented)
        }
        "custom_metadata" => custom_metadata(&test).await,
        "timeout_on_sleeping_server" => timeout_on_sleeping_server(&test).await,
        "error_details" => error_details(&test).await,
        other => Err(format!("no Connect interop case named {other}")),
    }
}

async fn client_streaming(test: &Client) -> Outcome {
    let requests = tokio_stream::iter(client_stream_requests()?);
    let r = test.streaming_input_call(requests).await.map_err(failed)?;
    check_aggregate(r.get_ref())
}

async fn server_streaming(test: &Client) -> Outcome {
    let answers = test
        .streaming_output_call(server_stream_request())
        .await
        .map_err(failed)?;
    check_streamed(answers.into_inner()).await
}

async fn ping_pong(test: &Client) -> Outcome {
    let (tx, requests) = ping_pong_requests().await?;
    let answers = test.full_duplex_call(requests).await.map_err(failed)?;
    play_ping_pong(tx, answers.into_inner()).await
}

/// The server answers with the status the request gives, unary and
/// streaming.
async fn echo_status(test: &Client, message: &str) -> Outcome {
    let status = EchoStatus {
        code: 2,
        message: message.into(),
        ..Default::default()
    };
    let expect = |result| expect_echoed(result, message);
    let request = pb::SimpleRequest {
        response_status: Some(status.clone()),
        ..Default::default()
    };
    expect(test.unary_call(request).await.map(|_| ()))?;
    let request = pb::StreamingOutputCallRequest {
        response_status: Some(status),
        ..Default::default()
    };
    let streamed = async {
        let mut answers = test.streaming_output_call(request).await?.into_inner();
        while answers.message().await?.is_some() {}
        Ok(())
    };
    expect(streamed.await)
}

async fn custom_metadata(test: &Client) -> Outcome {
    // Unary: the trailers arrive with the answer's metadata.
    let answer = test
        .unary_call(with_metadata(Request::new(large_request()?)))
        .await
        .map_err(failed)?;
    check_metadata(answer.metadata(), answer.metadata())?;
    // Streaming: headers first, trailers after the last message.
    let request = duplex_request(314_159, 271_828)?;
    let answer = test
        .streaming_output_call(with_metadata(Request::new(request)))
        .await
        .map_err(failed)?;
    let headers = answer.metadata().clone();
    let mut answers = answer.into_inner();
    let mut sizes = Vec::new();
    while let Some(r) = answers.message().await.map_err(failed)? {
        sizes.push(body_len(r.payload.as_ref()));
    }
    check(sizes == [314_159], || format!("answers {sizes:?}"))?;
    let trailers = answers.trailers().await.map_err(failed)?.unwrap_or_default();
    check_metadata(&headers, &trailers)
}

async fn timeout_on_sleeping_server(test: &Client) -> Outcome {
    let mut request =
        Request::new(tokio_stream::iter([duplex_request(31_415, 27_182)?]).chain(tokio_stream::pending()));
    request.set_timeout(Duration::from_millis(1));
    let call = async {
        let mut answers = test.full_duplex_call(request).await?.into_inner();
        while answers.message().await?.is_some() {}
        Ok(())
    };
    let result = match tokio::time::timeout(Duration::from_secs(5), call).await {
        Ok(result) => result,
        Err(_) => Err(Status::deadline_exceeded("client-side deadline")),
    };
    expect_code(result, Code::DeadlineExceeded)
}

/// A status with details (the server's `ECHO_DETAILS`): they arrive as
/// gRPC carries them, an encoded `google.rpc.Status` whose detail is the
/// `EchoStatus` asked for; unary and streaming.
async fn error_details(test: &Client) -> Outcome {
    let status = EchoStatus {
        code: 3,
        message: "with details".into(),
        ..Default::default()
    };
    let expect = |result: Result<(), Status>| -> Outcome {
        let Err(s) = result else {
            return Err("the call succeeded".into());
        };
        check(s.code() == Code::InvalidArgument, || format!("code {:?}", s.code()))?;
        let (type_url, value) = only_detail(s.details()).ok_or("no detail")?;
        check(type_url == "type.googleapis.com/grpc.testing.EchoStatus", || {
            format!("a detail of type {type_url}")
        })?;
        let echoed = <EchoStatus as fastrs::Message>::decode(&value).map_err(|e| e.to_string())?;
        check(echoed == status, || format!("detail {echoed:?}"))
    };
    let mut request = Request::new(pb::SimpleRequest {
        response_status: Some(status.clone()),
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert(ECHO_DETAILS, MetadataValue::from_static("1"));
    expect(test.unary_call(request).await.map(|_| ()))?;
    let mut request = Request::new(pb::StreamingOutputCallRequest {
        response_status: Some(status.clone()),
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert(ECHO_DETAILS, MetadataValue::from_static("1"));
    let streamed = async {
        let mut answers = test.streaming_output_call(request).await?.into_inner();
        while answers.message().await?.is_some() {}
        Ok(())
    };
    expect(streamed.await)
}

/// The one detail of an encoded `google.rpc.Status`: its `Any`'s type URL
/// and value.
fn only_detail(status: &[u8]) -> Option<(String, Vec<u8>)> {
    let mut reader = fastrs::Reader::new(status);
    let mut any = None;
    while !reader.is_empty() {
        let tag = reader.read_tag().ok()?;
        if tag == (3 << 3 | 2) {
            any = Some(reader.read_bytes().ok()?);
        } else {
            reader.skip_value(tag, 100).ok()?;
        }
    }
    let mut reader = fastrs::Reader::new(any?);
    let (mut type_url, mut value) = (String::new(), Vec::new());
    while !reader.is_empty() {
        match reader.read_tag().ok()? {
            0x0a => type_url = String::from_utf8(reader.read_bytes().ok()?.to_vec()).ok()?,
            0x12 => value = reader.read_bytes().ok()?.to_vec(),
            tag => reader.skip_value(tag, 100).ok()?,
        }
    }
    Some((type_url, value))
}
