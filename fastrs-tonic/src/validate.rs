//! Requests checked by their protovalidate rules (feature `validate`):
//! the server codec of services generated with both `grpc` and
//! `validate=true`, and what clients and handlers use to refuse alike.
//!
//! A server refuses a request that breaks its rules before the handler
//! runs ([`ServerCodec`]): the call fails with `INVALID_ARGUMENT`, the
//! violations as a `buf.validate.Violations` in the status details
//! (`grpc-status-details-bin`), which gRPC-Web carries as they are and
//! Connect as its error's `details`; [`violations`] reads them back.
//! Responses are not checked.
//!
//! A client checks a request before sending it with [`checked`], which
//! fails with the status the server would answer, without a round trip
//! (generated Connect clients check single requests themselves).
//!
//! ```ignore
//! // build.rs
//! protoc_gen_fastrs::Builder::new().grpc().validate().compile(&["signup.proto"], &["proto"])?;
//! // a client
//! let created = client.create_account(fastrs_tonic::validate::checked(request)?).await?;
//! ```
//!
//! Handlers that check more can answer with the same status:
//! [`status`] of a `fastrs::validate::Error`.

use fastrs::validate::{Error, Validate, ValidateOptions};
use fastrs::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::{Code, Status};

use crate::{FastrsCodec, FastrsDecoder, FastrsEncoder};

/// The status of a refused message: `INVALID_ARGUMENT`, the error's text,
/// and for violations a `buf.validate.Violations` in the details.
#[must_use]
pub fn status(error: &Error) -> Status {
    let message = error.to_string();
    match error.violations() {
        Some(violations) => {
            let details = [(
                "buf.validate.Violations".to_string(),
                bytes::Bytes::from(violations.encode_to_vec()),
            )];
            let encoded = crate::status::rpc_status(Code::InvalidArgument as i32, &message, &details);
            Status::with_details(Code::InvalidArgument, message, encoded)
        }
        None => Status::invalid_argument(message),
    }
}

/// `request`, if its message is valid; else the status a server with
/// validation answers it with (`INVALID_ARGUMENT` and the violations), so
/// that a client need not send it.
///
/// # Errors
/// The message breaks its rules.
pub fn checked<T: Validate>(request: impl tonic::IntoRequest<T>) -> Result<tonic::Request<T>, Status> {
    let request = request.into_request();
    request.get_ref().validate().map_err(|e| status(&e))?;
    Ok(request)
}

/// The violations a refused call's status carries in its details (a
/// `buf.validate.Violations`), as [`status`] puts them there: what a client
/// reads of a server's refusal, over gRPC, gRPC-Web or Connect.
#[must_use]
pub fn violations(status: &Status) -> Option<fastrs::validate::Violations> {
    crate::status::details(status.details())
        .into_iter()
        .find(|(name, _)| name == "buf.validate.Violations")
        .and_then(|(_, value)| fastrs::validate::Violations::decode(&value).ok())
}

/// The codec of generated servers with validation: decodes requests and
/// refuses those that break their rules ([`status`]); encodes responses as
/// [`FastrsCodec`] does.
#[derive(Debug)]
pub struct ServerCodec<E, D> {
    inner: FastrsCodec<E, D>,
    options: ValidateOptions,
}

impl<E, D> Default for ServerCodec<E, D> {
    fn default() -> Self {
        ServerCodec {
            inner: FastrsCodec::default(),
            options: ValidateOptions::default(),
        }
    }
}

impl<E, D> Clone for ServerCodec<E, D> {
    fn clone(&self) -> Self {
        ServerCodec {
            inner: self.inner.clone(),
            options: self.options,
        }
    }
}

impl<E, D> ServerCodec<E, D> {
    /// The decode limits (as [`FastrsCodec::with_decode_options`]).
    #[must_use]
    pub fn with_decode_options(mut self, options: fastrs::DecodeOptions) -> Self {
        self.inner = self.inner.with_decode_options(options);
        self
    }

    /// How requests are validated (fail-fast, `now`).
    #[must_use]
    pub fn with_validate_options(mut self, options: ValidateOptions) -> Self {
        self.options = options;
        self
    }
}

impl<E, D> Codec for ServerCodec<E, D>
where
    E: Message + 'static,
    D: Message + Validate + 'static,
{
    type Encode = E;
    type Decode = D;
    type Encoder = FastrsEncoder<E>;
    type Decoder = ValidatingDecoder<D>;

    fn encoder(&mut self) -> Self::Encoder {
        self.inner.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        ValidatingDecoder {
            inner: self.inner.decoder(),
            options: self.options,
        }
    }
}

/// Decodes each message, then validates it.
#[derive(Debug)]
pub struct ValidatingDecoder<D> {
    inner: FastrsDecoder<D>,
    options: ValidateOptions,
}

impl<D: Message + Validate> Decoder for ValidatingDecoder<D> {
    type Item = D;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<D>, Status> {
        let message = self.inner.decode(src)?;
        if let Some(m) = &message {
            m.validate_with(&self.options).map_err(|e| status(&e))?;
        }
        Ok(message)
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.inner.buffer_settings()
    }
}
