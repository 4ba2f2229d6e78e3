//! `fastrs-conformance`: speaks the protobuf conformance protocol on stdin and
//! stdout. For each request (a 4-byte little-endian length, then a serialized
//! `conformance.ConformanceRequest`) it writes a length and a
//! `conformance.ConformanceResponse`, until EOF. Binary and JSON payloads are
//! parsed into the requested test message and written in the requested format
//! (binary or JSON); text format and unknown message types are answered
//! `skipped`. Arguments are ignored.

#[cfg(conformance_schemas)]
fn main() -> std::io::Result<()> {
    serve::run()
}

#[cfg(not(conformance_schemas))]
fn main() {
    eprintln!("{}", fastrs_conformance::NOTICE.trim_end());
    std::process::exit(2);
}

#[cfg(conformance_schemas)]
mod serve {
    use std::io::{self, Read, Write};

    use fastrs::Message;
    use fastrs_conformance::protos::conformance::{conformance_response, ConformanceRequest};
    use fastrs_conformance::{respond, result};

    pub fn run() -> io::Result<()> {
        let (stdin, stdout) = (io::stdin(), io::stdout());
        let (mut input, mut output) = (stdin.lock(), stdout.lock());
        let mut request_bytes = Vec::new();
        let mut response_bytes = Vec::new();
        while let Some(len) = read_len(&mut input)? {
            request_bytes.resize(len, 0);
            input.read_exact(&mut request_bytes)?;
            let response = match ConformanceRequest::decode(&request_bytes) {
                Ok(request) => respond(&request),
                Err(e) => result(conformance_response::Result::RuntimeError(format!("bad request: {e}"))),
            };
            response_bytes.clear();
            response.encode_append(&mut response_bytes);
            let len = u32::try_from(response_bytes.len()).map_err(|_| io::Error::other("response over 4 GiB"))?;
            output.write_all(&len.to_le_bytes())?;
            output.write_all(&response_bytes)?;
            output.flush()?;
        }
        Ok(())
    }

    /// The next request's length, or `None` at a clean EOF.
    fn read_len(input: &mut impl Read) -> io::Result<Option<usize>> {
        let mut len = [0u8; 4];
        match input.read_exact(&mut len) {
            Ok(()) => Ok(Some(u32::from_le_bytes(len) as usize)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }
}
