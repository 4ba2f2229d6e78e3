//! Connect streams as gRPC streams, frame by frame, in both directions at
//! once (bidi works, and a server stream's messages leave as they come).
//! Connect's envelopes are gRPC's frames with one more flag: the binary
//! codec passes them through; the JSON codec rewrites each message. A
//! gRPC stream ends with trailers, a Connect stream with an end-of-stream
//! envelope carrying the status and the trailers as JSON.

use std::collections::VecDeque;
use std::future::Future as _;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
use http_body::{Body, Frame};
use tonic::codegen::http::HeaderMap;

use super::compress;
use super::grpc::{self, Status};
use super::protocol;

/// Rewrites one message (JSON to binary, or back).
pub type Rewrite = Box<dyn FnMut(Bytes) -> Result<Bytes, Status> + Send>;

/// Which way a stream flows, and so how it ends.
pub enum Direction {
    /// The caller's Connect messages, to the service as gRPC frames.
    Request,
    /// The service's gRPC frames and trailers, to the caller as Connect
    /// envelopes and an end-of-stream envelope. The status is the one the
    /// response headers carried, for an answer with no trailers.
    Response(Option<Status>),
}

/// A body of envelopes (or frames), rewritten on the way through.
pub struct Envelopes<B> {
    inner: B,
    direction: Direction,
    /// `None`: the messages pass unchanged.
    rewrite: Option<Rewrite>,
    /// Whether compressed envelopes are gzip (the caller said
    /// `connect-content-encoding: gzip`); they are refused otherwise.
    gunzip: bool,
    /// Whether messages of `MIN_COMPRESSED` bytes or more leave gzipped.
    gzip: bool,
    /// When an answer stream ends with `deadline_exceeded`.
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    buffer: BytesMut,
    ready: VecDeque<Bytes>,
    done: bool,
}

impl<B> Envelopes<B> {
    pub fn new(inner: B, direction: Direction, rewrite: Option<Rewrite>) -> Self {
        Envelopes {
            inner,
            direction,
            rewrite,
            gunzip: false,
            gzip: false,
            deadline: None,
            buffer: BytesMut::new(),
            ready: VecDeque::new(),
            done: false,
        }
    }

    /// Reads the caller's compressed envelopes as gzip.
    pub fn gunzip(mut self) -> Self {
        self.gunzip = true;
        self
    }

    /// Gzips the messages of `MIN_COMPRESSED` bytes or more.
    pub fn gzip(mut self) -> Self {
        self.gzip = true;
        self
    }

    /// Ends an answer stream with `deadline_exceeded` after `timeout`.
    pub fn deadline(mut self, timeout: std::time::Duration) -> Self {
        self.deadline = Some(Box::pin(tokio::time::sleep(timeout)));
        self
    }

    /// Takes the whole envelopes out of the buffer, rewritten.
    fn drain(&mut self) -> Result<(), Status> {
        if self.rewrite.is_none() && !self.gunzip && !self.gzip {
            if !self.buffer.is_empty() {
                self.ready.push_back(self.buffer.split().freeze());
            }
            return Ok(());
        }
        while self.buffer.len() >= 5 {
            let len = u32::from_be_bytes([self.buffer[1], self.buffer[2], self.buffer[3], self.buffer[4]]) as usize;
            if self.buffer.len() < 5 + len {
                break;
            }
            let flags = self.buffer[0];
            self.buffer.advance(5);
            let mut message = self.buffer.split_to(len).freeze();
            if flags & protocol::COMPRESSED != 0 {
                if !self.gunzip {
                    return Err(Status {
                        code: 13,
                        message: "a compressed message, but no connect-content-encoding".into(),
                        details: None,
                    });
                }
                message = compress::gunzip(&message, protocol::MAX_REQUEST)?;
            }
            if let Some(rewrite) = &mut self.rewrite {
                message = rewrite(message)?;
            }
            let mut flags = 0;
            if self.gzip && message.len() >= compress::MIN_COMPRESSED {
                message = compress::gzip(&message);
                flags = protocol::COMPRESSED;
            }
            let mut out = BytesMut::with_capacity(message.len() + 5);
            protocol::envelope(flags, &message, &mut out);
            self.ready.push_back(out.freeze());
        }
        Ok(())
    }

    /// Ends a response stream with `status` and `trailers`.
    fn finish(&mut self, status: &Status, trailers: &HeaderMap) {
        let end = protocol::end_of_stream(status, trailers).to_string();
        let mut out = BytesMut::new();
        protocol::envelope(protocol::END_STREAM, end.as_bytes(), &mut out);
        self.ready.push_back(out.freeze());
        self.done = true;
    }

    /// The stream stops with `status`: an end-of-stream envelope for the
    /// caller, an error for the service.
    fn fail(&mut self, status: Status) -> Option<tonic::Status> {
        match self.direction {
            Direction::Response(_) => {
                self.ready.clear();
                self.finish(&status, &HeaderMap::new());
                None
            }
            Direction::Request => {
                self.done = true;
                Some(tonic::Status::new(tonic::Code::from_i32(status.code), status.message))
            }
        }
    }
}

impl<B> Body for Envelopes<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        let this = &mut *self;
        loop {
            if let Some(chunk) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(Frame::data(chunk))));
            }
            if this.done {
                return Poll::Ready(None);
            }
            if this.deadline.as_mut().is_some_and(|d| d.as_mut().poll(cx).is_ready()) {
                this.deadline = None;
                let status = Status {
                    code: 4,
                    message: "the call's deadline passed".into(),
                    details: None,
                };
                if let Some(error) = this.fail(status) {
                    return Poll::Ready(Some(Err(error)));
                }
                continue;
            }
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => {
                        this.buffer.extend_from_slice(&data);
                        if let Err(status) = this.drain() {
                            if let Some(error) = this.fail(status) {
                                return Poll::Ready(Some(Err(error)));
                            }
                        }
                    }
                    Err(frame) => {
                        if let (Direction::Response(_), Ok(mut trailers)) = (&this.direction, frame.into_trailers()) {
                            let status = grpc::take_status(&mut trailers);
                            grpc::drop_own(&mut trailers);
                            this.finish(&status, &trailers);
                        }
                    }
                },
                Some(Err(e)) => {
                    let status = Status {
                        code: 13,
                        message: e.to_string(),
                        details: None,
                    };
                    if let Some(error) = this.fail(status) {
                        return Poll::Ready(Some(Err(error)));
                    }
                }
                None => match &mut this.direction {
                    Direction::Response(status) => {
                        let status = status.take().unwrap_or(Status {
                            code: 0,
                            message: String::new(),
                            details: None,
                        });
                        this.finish(&status, &HeaderMap::new());
                    }
                    Direction::Request => this.done = true,
                },
            }
        }
    }
}
