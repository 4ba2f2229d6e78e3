//! Calls with raw bytes for a body, to put malformed messages on the wire
//! (for tests and probing tools).

use bytes::{Buf, BufMut};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;
use tonic::Status;

/// A codec that sends and receives bytes as they are.
#[derive(Debug, Default, Clone, Copy)]
pub struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;

    fn encoder(&mut self) -> Raw {
        Raw
    }

    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}

/// Calls `TestService.UnaryCall` with `body` as the request's bytes and
/// returns the response's bytes.
///
/// # Errors
/// The call's status.
pub async fn unary(channel: Channel, body: Vec<u8>) -> Result<Vec<u8>, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.map_err(|e| Status::unavailable(e.to_string()))?;
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/grpc.testing.TestService/UnaryCall");
    let response = grpc.unary(tonic::Request::new(body), path, Raw).await?;
    Ok(response.into_inner())
}
