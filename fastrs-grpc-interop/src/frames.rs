//! Which messages of a gRPC body carried the compressed flag.
//!
//! Every gRPC message on the wire starts with a 5-byte prefix: a flag byte
//! (1 when the message is compressed) and a big-endian length. tonic reads
//! the prefix and hands out the decoded message only, so the compression
//! cases, which must check the flag of each message, read it here: a body
//! wrapper that follows the prefixes as the bytes go by and records each
//! flag in a [`CompressedFlags`] that the request or response carries in its
//! extensions. It works on any body, whatever sizes its chunks have.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tonic::codegen::http;

/// The compressed flag of each message seen so far, in order: shared by the
/// body that fills it and the handler or case that reads it.
#[derive(Clone, Debug, Default)]
pub struct CompressedFlags(Arc<Mutex<Vec<bool>>>);

impl CompressedFlags {
    /// The flags of the messages read so far.
    #[must_use]
    pub fn get(&self) -> Vec<bool> {
        self.0.lock().map(|f| f.clone()).unwrap_or_default()
    }

    fn push(&self, compressed: bool) {
        if let Ok(mut flags) = self.0.lock() {
            flags.push(compressed);
        }
    }
}

/// A body whose message prefixes are recorded as they pass.
#[derive(Debug)]
pub struct Flagged<B> {
    inner: B,
    flags: CompressedFlags,
    /// Bytes of the current prefix seen so far (0..5).
    prefix: [u8; 5],
    have: usize,
    /// Bytes of the current message body still to pass.
    remaining: u64,
}

impl<B> Flagged<B> {
    /// Wraps `inner`, recording into `flags`.
    pub fn new(inner: B, flags: CompressedFlags) -> Self {
        Flagged {
            inner,
            flags,
            prefix: [0; 5],
            have: 0,
            remaining: 0,
        }
    }

    /// Follows the prefixes through one chunk of the body.
    fn scan(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() {
            if self.remaining > 0 {
                let skip = usize::try_from(self.remaining).unwrap_or(usize::MAX).min(chunk.len());
                chunk = &chunk[skip..];
                self.remaining -= skip as u64;
                continue;
            }
            let take = (5 - self.have).min(chunk.len());
            self.prefix[self.have..self.have + take].copy_from_slice(&chunk[..take]);
            self.have += take;
            chunk = &chunk[take..];
            if self.have == 5 {
                self.flags.push(self.prefix[0] & 1 == 1);
                let len = u32::from_be_bytes([self.prefix[1], self.prefix[2], self.prefix[3], self.prefix[4]]);
                self.remaining = u64::from(len);
                self.have = 0;
            }
        }
    }
}

impl<B> Body for Flagged<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let Some(data) = frame.data_ref() {
                let data = data.clone(); // a reference count, not a copy
                self.scan(&data);
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Wraps the body of `request` and puts its [`CompressedFlags`] in the
/// request's extensions, where a tonic handler finds them
/// (`request.extensions().get::<CompressedFlags>()`).
pub fn flag_request(request: http::Request<tonic::body::Body>) -> http::Request<tonic::body::Body> {
    let flags = CompressedFlags::default();
    let (mut parts, body) = request.into_parts();
    parts.extensions.insert(flags.clone());
    http::Request::from_parts(parts, tonic::body::Body::new(Flagged::new(body, flags)))
}

/// A client transport (a tonic `Channel`) whose responses carry the
/// [`CompressedFlags`] of their messages in their extensions, which tonic
/// passes on to `tonic::Response::extensions`.
#[derive(Clone, Debug)]
pub struct FlaggedChannel<S>(pub S);

impl<S, B> tower_service::Service<http::Request<tonic::body::Body>> for FlaggedChannel<S>
where
    S: tower_service::Service<http::Request<tonic::body::Body>, Response = http::Response<B>>,
    S::Future: Send + 'static,
    B: Body<Data = Bytes> + Unpin,
{
    type Response = http::Response<Flagged<B>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn std::future::Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let response = self.0.call(request);
        Box::pin(async move {
            let flags = CompressedFlags::default();
            let (mut parts, body) = response.await?.into_parts();
            parts.extensions.insert(flags.clone());
            Ok(http::Response::from_parts(parts, Flagged::new(body, flags)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags of a body cut into chunks of `size` bytes.
    fn flags_in_chunks(wire: &[u8], size: usize) -> Vec<bool> {
        let flags = CompressedFlags::default();
        let mut body = Flagged::new(http_body_util::Empty::<bytes::Bytes>::new(), flags.clone());
        for chunk in wire.chunks(size) {
            body.scan(chunk);
        }
        flags.get()
    }

    #[test]
    fn flags_are_read_from_prefixes_split_anywhere() {
        // Three messages: compressed (3 bytes), plain (0 bytes), plain (2 bytes).
        let wire = [1, 0, 0, 0, 3, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 7, 7];
        for size in 1..=wire.len() {
            assert_eq!(flags_in_chunks(&wire, size), [true, false, false], "chunks of {size}");
        }
    }
}
