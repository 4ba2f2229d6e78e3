//! The interop cases, client side: each calls a server and checks what
//! comes back as the interop test description says. An `Err` says which
//! check failed.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt as _};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

// `super::`, not `crate::`: the interop tests compile this file again over
// prost's types of the same schema, for the tonic-prost side.
use super::pb::test_service_client::TestServiceClient;
use super::pb::unimplemented_service_client::UnimplementedServiceClient;
use super::pb::{self, EchoStatus, ResponseParameters};
use super::server::{payload, ECHO_INITIAL, ECHO_TRAILING};

/// What a failed check says.
pub type Outcome = Result<(), String>;

/// Runs case `name` against the server at `channel`.
///
/// # Errors
/// The first check that failed, or an unknown case name.
pub async fn run(name: &str, channel: Channel) -> Outcome {
    let mut client = TestServiceClient::new(channel.clone());
    match name {
        "empty_unary" => empty_unary(&mut client).await,
        "large_unary" => large_unary(&mut client).await,
        "client_compressed_unary" => client_compressed_unary(channel).await,
        "server_compressed_unary" => server_compressed_unary(channel).await,
        "client_streaming" => client_streaming(&mut client).await,
        "server_streaming" => server_streaming(&mut client).await,
        "ping_pong" => ping_pong(&mut client).await,
        "empty_stream" => empty_stream(&mut client).await,
        "status_code_and_message" => echo_status(&mut client, "test status message").await,
        "special_status_message" => {
            let message = "\t\ntest with whitespace\r\nand Unicode BMP \u{263A} and non-BMP \u{1F608}\t\n";
            echo_status(&mut client, message).await
        }
        "unimplemented_method" => {
            let r = client.unimplemented_call(pb::Empty::default()).await;
            expect_code(r.map(|_| ()), Code::Unimplemented)
        }
        "unimplemented_service" => {
            let mut other = UnimplementedServiceClient::new(channel);
            let r = other.unimplemented_call(pb::Empty::default()).await;
            expect_code(r.map(|_| ()), Code::Unimplemented)
        }
        "custom_metadata" => custom_metadata(&mut client).await,
        "timeout_on_sleeping_server" => timeout_on_sleeping_server(&mut client).await,
        "cancel_after_begin" => cancel_after_begin(client).await,
        "cancel_after_first_response" => cancel_after_first_response(client).await,
        other => Err(format!("no interop case named {other}")),
    }
}

type Client = TestServiceClient<Channel>;

pub(crate) fn check(ok: bool, what: impl FnOnce() -> String) -> Outcome {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

pub(crate) fn failed(status: Status) -> String {
    format!("call failed: {:?} {}", status.code(), status.message())
}

pub(crate) fn expect_code(result: Result<(), Status>, code: Code) -> Outcome {
    match result {
        Ok(()) => Err(format!("expected status {code:?}, the call succeeded")),
        Err(s) => check(s.code() == code, || {
            format!("expected status {code:?}, got {:?}: {}", s.code(), s.message())
        }),
    }
}

pub(crate) fn body_len(p: Option<&pb::Payload>) -> usize {
    p.map_or(0, |p| p.body.len())
}

async fn empty_unary(client: &mut Client) -> Outcome {
    let r = client.empty_call(pb::Empty::default()).await.map_err(failed)?;
    check(r.into_inner() == pb::Empty::default(), || {
        "EmptyCall answered a non-empty message".into()
    })
}

/// The request of `large_unary` and `custom_metadata`.
pub(crate) fn large_request() -> Result<pb::SimpleRequest, String> {
    Ok(pb::SimpleRequest {
        response_size: 314_159,
        payload: Some(payload(271_828).map_err(failed)?),
        ..Default::default()
    })
}

async fn large_unary(client: &mut Client) -> Outcome {
    let r = client.unary_call(large_request()?).await.map_err(failed)?.into_inner();
    let len = body_len(r.payload.as_ref());
    check(len == 314_159, || format!("payload of {len} bytes, expected 314159"))
}

/// `large_request` with `expect_compressed` or `response_compressed` set.
fn compression_request(expect: Option<bool>, respond: Option<bool>) -> Result<pb::SimpleRequest, String> {
    let flag = |value| pb::BoolValue {
        value,
        ..Default::default()
    };
    Ok(pb::SimpleRequest {
        expect_compressed: expect.map(flag),
        response_compressed: respond.map(flag),
        ..large_request()?
    })
}

fn check_large(r: &pb::SimpleResponse) -> Outcome {
    let len = body_len(r.payload.as_ref());
    check(len == 314_159, || format!("payload of {len} bytes, expected 314159"))
}

/// The probe (an uncompressed request that says it is compressed) must be
/// refused; then a compressed and an uncompressed request are answered.
async fn client_compressed_unary(channel: Channel) -> Outcome {
    use tonic::codec::CompressionEncoding::Gzip;
    let mut plain = TestServiceClient::new(channel.clone());
    let probe = plain.unary_call(compression_request(Some(true), None)?).await;
    expect_code(probe.map(|_| ()), Code::InvalidArgument)?;
    let mut gzip = TestServiceClient::new(channel).send_compressed(Gzip);
    let r = gzip
        .unary_call(compression_request(Some(true), None)?)
        .await
        .map_err(failed)?;
    check_large(r.get_ref())?;
    let r = plain
        .unary_call(compression_request(Some(false), None)?)
        .await
        .map_err(failed)?;
    check_large(r.get_ref())
}

/// The response's message is compressed exactly when the request asks: the
/// flag is read from the wire ([`super::frames`]), under tonic.
async fn server_compressed_unary(channel: Channel) -> Outcome {
    use super::frames::{CompressedFlags, FlaggedChannel};
    use tonic::codec::CompressionEncoding::Gzip;
    let mut client = TestServiceClient::new(FlaggedChannel(channel)).accept_compressed(Gzip);
    for compressed in [true, false] {
        let r = client
            .unary_call(compression_request(None, Some(compressed))?)
            .await
            .map_err(failed)?;
        let flags = r.extensions().get::<CompressedFlags>().map(CompressedFlags::get);
        check(flags.as_deref() == Some(&[compressed][..]), || {
            format!("response_compressed {compressed}: message flags {flags:?}")
        })?;
        check_large(r.get_ref())?;
    }
    Ok(())
}

/// The requests of `client_streaming`.
pub(crate) fn client_stream_requests() -> Result<Vec<pb::StreamingInputCallRequest>, String> {
    [27_182, 8, 1_828, 45_904]
        .into_iter()
        .map(|n| {
            Ok(pb::StreamingInputCallRequest {
                payload: Some(payload(n)?),
                ..Default::default()
            })
        })
        .collect::<Result<_, Status>>()
        .map_err(failed)
}

/// The check of `client_streaming`'s answer.
pub(crate) fn check_aggregate(r: &pb::StreamingInputCallResponse) -> Outcome {
    check(r.aggregated_payload_size == 74_922, || {
        format!("aggregated size {}, expected 74922", r.aggregated_payload_size)
    })
}

async fn client_streaming(client: &mut Client) -> Outcome {
    let requests = tokio_stream::iter(client_stream_requests()?);
    let r = client.streaming_input_call(requests).await.map_err(failed)?;
    check_aggregate(r.get_ref())
}

pub(crate) fn parameters(size: i32) -> ResponseParameters {
    ResponseParameters {
        size,
        ..Default::default()
    }
}

/// The answer sizes `server_streaming` asks for.
pub(crate) const STREAMED_SIZES: [i32; 4] = [31_415, 9, 2_653, 58_979];

/// The request of `server_streaming`.
pub(crate) fn server_stream_request() -> pb::StreamingOutputCallRequest {
    pb::StreamingOutputCallRequest {
        response_parameters: STREAMED_SIZES.iter().map(|&s| parameters(s)).collect(),
        ..Default::default()
    }
}

/// Reads `answers` to the end and checks their sizes against
/// [`STREAMED_SIZES`].
pub(crate) async fn check_streamed<S>(mut answers: S) -> Outcome
where
    S: Stream<Item = Result<pb::StreamingOutputCallResponse, Status>> + Unpin,
{
    let mut got = Vec::new();
    while let Some(r) = answers.next().await {
        got.push(body_len(r.map_err(failed)?.payload.as_ref()));
    }
    check(got == STREAMED_SIZES.map(|s| s as usize), || {
        format!("response sizes {got:?}, expected {STREAMED_SIZES:?}")
    })
}

async fn server_streaming(client: &mut Client) -> Outcome {
    let answers = client
        .streaming_output_call(server_stream_request())
        .await
        .map_err(failed)?;
    check_streamed(answers.into_inner()).await
}

/// One `FullDuplexCall` request: a response of `size` for a payload of `payload_size`.
pub(crate) fn duplex_request(size: i32, payload_size: i32) -> Result<pb::StreamingOutputCallRequest, String> {
    Ok(pb::StreamingOutputCallRequest {
        response_parameters: vec![parameters(size)],
        payload: Some(payload(payload_size).map_err(failed)?),
        ..Default::default()
    })
}

/// The exchanges of `ping_pong`: answer size, payload size.
const PING_PONG: [(i32, i32); 4] = [(31_415, 27_182), (9, 8), (2_653, 1_828), (58_979, 45_904)];

/// The request stream of `ping_pong`, its first request already in: a
/// server may hold the answer's headers (which awaiting the call waits
/// for) until it has a request to answer (grpcio does).
pub(crate) async fn ping_pong_requests() -> Result<
    (
        mpsc::Sender<pb::StreamingOutputCallRequest>,
        ReceiverStream<pb::StreamingOutputCallRequest>,
    ),
    String,
> {
    let (tx, rx) = mpsc::channel(1);
    let (size, payload_size) = PING_PONG[0];
    tx.send(duplex_request(size, payload_size)?)
        .await
        .map_err(|_| "request stream closed")?;
    Ok((tx, ReceiverStream::new(rx)))
}

/// Plays `ping_pong` on an open call: the rest of the requests into `tx`,
/// one at a time, each answer checked as it comes from `answers`.
pub(crate) async fn play_ping_pong<S>(tx: mpsc::Sender<pb::StreamingOutputCallRequest>, mut answers: S) -> Outcome
where
    S: Stream<Item = Result<pb::StreamingOutputCallResponse, Status>> + Unpin,
{
    for (i, (size, payload_size)) in PING_PONG.into_iter().enumerate() {
        if i > 0 {
            tx.send(duplex_request(size, payload_size)?)
                .await
                .map_err(|_| "request stream closed")?;
        }
        let r = answers.next().await.ok_or("stream ended early")?.map_err(failed)?;
        let len = body_len(r.payload.as_ref());
        check(len == size as usize, || {
            format!("response of {len} bytes, expected {size}")
        })?;
    }
    drop(tx);
    check(answers.next().await.is_none(), || {
        "a response after the last request".into()
    })
}

async fn ping_pong(client: &mut Client) -> Outcome {
    let (tx, requests) = ping_pong_requests().await?;
    let answers = client.full_duplex_call(requests).await.map_err(failed)?;
    play_ping_pong(tx, answers.into_inner()).await
}

async fn empty_stream(client: &mut Client) -> Outcome {
    let requests = tokio_stream::iter(Vec::<pb::StreamingOutputCallRequest>::new());
    let mut responses = client.full_duplex_call(requests).await.map_err(failed)?.into_inner();
    check(responses.next().await.is_none(), || "responses to no requests".into())
}

/// The check of an echoed status: `UNKNOWN` with `message`.
pub(crate) fn expect_echoed(result: Result<(), Status>, message: &str) -> Outcome {
    match result {
        Ok(()) => Err("the call succeeded; expected UNKNOWN".to_string()),
        Err(s) if s.code() == Code::Unknown && s.message() == message => Ok(()),
        Err(s) => Err(format!(
            "got {:?} {:?}, expected UNKNOWN {message:?}",
            s.code(),
            s.message()
        )),
    }
}

/// `status_code_and_message` and `special_status_message`: the server
/// answers with the status the request gives, unary and streaming.
async fn echo_status(client: &mut Client, message: &str) -> Outcome {
    let status = EchoStatus {
        code: 2,
        message: message.into(),
        ..Default::default()
    };
    let request = pb::SimpleRequest {
        response_status: Some(status.clone()),
        ..Default::default()
    };
    let expect = |result| expect_echoed(result, message);
    expect(client.unary_call(request).await.map(|_| ()))?;
    let request = pb::StreamingOutputCallRequest {
        response_status: Some(status),
        ..Default::default()
    };
    let streamed = async {
        let mut responses = client
            .full_duplex_call(tokio_stream::iter([request]))
            .await?
            .into_inner();
        while responses.message().await?.is_some() {}
        Ok(())
    };
    expect(streamed.await)
}

/// `request` with the metadata `custom_metadata` asks the server to echo.
pub(crate) fn with_metadata<T>(mut request: Request<T>) -> Request<T> {
    let md = request.metadata_mut();
    md.insert(ECHO_INITIAL, MetadataValue::from_static("test_initial_metadata_value"));
    md.insert_bin(ECHO_TRAILING, MetadataValue::from_bytes(&[0xab, 0xab, 0xab]));
    request
}

/// The check of `custom_metadata`: the echoes in the headers and trailers.
pub(crate) fn check_metadata(headers: &MetadataMap, trailers: &MetadataMap) -> Outcome {
    let got = headers.get(ECHO_INITIAL).and_then(|v| v.to_str().ok());
    check(got == Some("test_initial_metadata_value"), || {
        format!("initial metadata {got:?}")
    })?;
    let got = trailers.get_bin(ECHO_TRAILING).and_then(|v| v.to_bytes().ok());
    check(got.as_deref() == Some(&[0xab, 0xab, 0xab][..]), || {
        format!("trailing metadata {got:?}")
    })
}

async fn custom_metadata(client: &mut Client) -> Outcome {
    // Unary: the trailers arrive with the response's metadata.
    let response = client
        .unary_call(with_metadata(Request::new(large_request()?)))
        .await
        .map_err(failed)?;
    check_metadata(response.metadata(), response.metadata())?;
    let len = body_len(response.get_ref().payload.as_ref());
    check(len == 314_159, || format!("payload of {len} bytes"))?;

    // Streaming: headers first, trailers after the last message.
    let request = duplex_request(314_159, 271_828)?;
    let response = client
        .full_duplex_call(with_metadata(Request::new(tokio_stream::iter([request]))))
        .await
        .map_err(failed)?;
    let headers = response.metadata().clone();
    let mut stream = response.into_inner();
    let mut sizes = Vec::new();
    while let Some(r) = stream.message().await.map_err(failed)? {
        sizes.push(body_len(r.payload.as_ref()));
    }
    check(sizes == [314_159], || format!("responses {sizes:?}"))?;
    let trailers = stream.trailers().await.map_err(failed)?.unwrap_or_default();
    check_metadata(&headers, &trailers)
}

async fn timeout_on_sleeping_server(client: &mut Client) -> Outcome {
    let mut request =
        Request::new(tokio_stream::iter([duplex_request(31_415, 27_182)?]).chain(tokio_stream::pending()));
    request.set_timeout(Duration::from_millis(1));
    let call = async {
        let mut responses = client.full_duplex_call(request).await?.into_inner();
        while responses.message().await?.is_some() {}
        Ok(())
    };
    // The deadline travels to the server as `grpc-timeout`; the client
    // enforces it too, in case the server's answer is late.
    let result = match tokio::time::timeout(Duration::from_secs(5), call).await {
        Ok(result) => result,
        Err(_) => Err(Status::deadline_exceeded("client-side deadline")),
    };
    // tonic reports a deadline it enforces itself (client or server side)
    // as CANCELLED with its `TimeoutExpired` error inside: the deadline,
    // whatever the code says.
    let tonic_deadline = |s: &Status| {
        let mut source = std::error::Error::source(s);
        while let Some(e) = source {
            if e.is::<tonic::TimeoutExpired>() {
                return s.code() == Code::Cancelled;
            }
            source = e.source();
        }
        false
    };
    match result {
        Err(s) if tonic_deadline(&s) => Ok(()),
        other => expect_code(other, Code::DeadlineExceeded),
    }
}

/// Cancelling is dropping the call: the task running it is aborted, and the
/// server must carry on.
async fn cancel_after_begin(mut client: Client) -> Outcome {
    let call = tokio::spawn(async move {
        let requests = tokio_stream::pending::<pb::StreamingInputCallRequest>();
        client.streaming_input_call(requests).await
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    call.abort();
    match call.await {
        Err(e) if e.is_cancelled() => Ok(()),
        Err(e) => Err(format!("the call task failed: {e}")),
        Ok(r) => Err(format!(
            "the call finished before it was cancelled: {:?}",
            r.map(|_| ())
        )),
    }
}

async fn cancel_after_first_response(mut client: Client) -> Outcome {
    let (first, got_first) = tokio::sync::oneshot::channel();
    let request = duplex_request(31_415, 27_182)?;
    let call = tokio::spawn(async move {
        let requests = tokio_stream::iter([request]).chain(tokio_stream::pending());
        let mut responses = client.full_duplex_call(requests).await?.into_inner();
        let response = responses.message().await?;
        let _ = first.send(response.map(|r| body_len(r.payload.as_ref())));
        std::future::pending::<()>().await;
        Ok::<(), Status>(())
    });
    let len = tokio::time::timeout(Duration::from_secs(5), got_first).await;
    call.abort();
    match len {
        Ok(Ok(Some(31_415))) => {}
        other => return Err(format!("first response: {other:?}")),
    }
    match call.await {
        Err(e) if e.is_cancelled() => Ok(()),
        other => Err(format!("the call was not cancelled: {other:?}")),
    }
}
