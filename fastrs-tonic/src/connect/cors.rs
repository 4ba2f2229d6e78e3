//! CORS for browser callers: preflight answers, and the headers that let a
//! page read an answer (Connect's and gRPC-Web's own among them).

use tonic::body::Body;
use tonic::codegen::http::{self, header, HeaderValue, StatusCode};

/// Which origins may call, for how long a preflight holds.
#[derive(Clone, Debug)]
pub struct Cors {
    /// `None`: any origin.
    origins: Option<Vec<String>>,
    max_age_seconds: u32,
}

/// Headers a browser may send beside the simple ones: Connect's, gRPC-Web's
/// and gRPC's.
const ALLOWED_HEADERS: &str = "content-type, connect-protocol-version, connect-timeout-ms, \
    connect-accept-encoding, connect-content-encoding, grpc-timeout, x-grpc-web, x-user-agent, authorization";

/// Headers a page may read: the statuses and encodings.
const EXPOSED_HEADERS: &str = "grpc-status, grpc-message, grpc-status-details-bin, content-encoding, \
    connect-content-encoding, connect-accept-encoding";

impl Cors {
    /// Any origin may call.
    #[must_use]
    pub fn any_origin() -> Self {
        Cors {
            origins: None,
            max_age_seconds: 7200,
        }
    }

    /// Only `origins` (`https://app.example.com`) may call.
    #[must_use]
    pub fn origins<I: IntoIterator<Item = S>, S: Into<String>>(origins: I) -> Self {
        Cors {
            origins: Some(origins.into_iter().map(Into::into).collect()),
            max_age_seconds: 7200,
        }
    }

    /// How long a browser may keep a preflight's answer (two hours by
    /// default).
    #[must_use]
    pub fn max_age(mut self, seconds: u32) -> Self {
        self.max_age_seconds = seconds;
        self
    }

    /// The value of `Access-Control-Allow-Origin` for `origin`, if allowed.
    fn allow(&self, origin: &HeaderValue) -> Option<HeaderValue> {
        match &self.origins {
            None => Some(HeaderValue::from_static("*")),
            Some(list) => {
                let origin_text = origin.to_str().ok()?;
                list.iter().any(|o| o == origin_text).then(|| origin.clone())
            }
        }
    }

    /// The answer to a preflight request (`OPTIONS` with an origin and a
    /// requested method), or `None` for any other request.
    pub(super) fn preflight<B>(&self, request: &http::Request<B>) -> Option<http::Response<Body>> {
        let headers = request.headers();
        let origin = headers.get(header::ORIGIN)?;
        if request.method() != http::Method::OPTIONS || !headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD) {
            return None;
        }
        let mut response = http::Response::new(Body::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let Some(allowed) = self.allow(origin) else {
            return Some(response);
        };
        let out = response.headers_mut();
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allowed);
        out.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("POST, GET"),
        );
        let requested = headers.get(header::ACCESS_CONTROL_REQUEST_HEADERS).cloned();
        out.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            requested.unwrap_or(HeaderValue::from_static(ALLOWED_HEADERS)),
        );
        out.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from(self.max_age_seconds));
        out.insert(header::VARY, HeaderValue::from_static("Origin"));
        Some(response)
    }

    /// Lets the calling page (of `origin`) read `response`.
    pub(super) fn decorate(&self, origin: Option<&HeaderValue>, response: &mut http::Response<Body>) {
        let Some(allowed) = origin.and_then(|o| self.allow(o)) else {
            return;
        };
        let out = response.headers_mut();
        let exposed = exposed_headers(out);
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allowed);
        out.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, exposed);
        out.append(header::VARY, HeaderValue::from_static("Origin"));
    }
}

/// The headers a page may read of an answer with `headers`: the statuses
/// and encodings, and the service's own metadata (Connect's unary trailers,
/// `trailer-*`, among them), which a browser hides unless named.
fn exposed_headers(headers: &http::HeaderMap) -> HeaderValue {
    let mut list = EXPOSED_HEADERS.to_owned();
    for name in headers.keys() {
        let name = name.as_str();
        let standard = matches!(name, "content-type" | "content-length" | "date" | "vary")
            || name.starts_with("access-control-")
            || EXPOSED_HEADERS.split(", ").any(|own| own == name);
        if !standard {
            list.push_str(", ");
            list.push_str(name);
        }
    }
    // Header names and the fixed list are visible ASCII.
    HeaderValue::from_str(&list).unwrap_or(HeaderValue::from_static(EXPOSED_HEADERS))
}
