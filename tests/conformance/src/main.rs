//! `fastrs-conformance`: speaks the protobuf conformance protocol on stdin and
//! stdout. For each request (a 4-byte little-endian length, then a serialized
//! `conformance.ConformanceRequest`) it writes a length and a
//! `conformance.ConformanceResponse`, until EOF. Binary and JSON payloads are
//! parsed into the requested test message and written in the requested format
//! (binary or JSON); text format and unknown message types are answered
//! `skipped`. Arguments are ignored; with `FASTRS_CONFORMANCE_MODE=size` the
//! answers come from size-mode generated code, with `view` binary payloads
//! are read through zero-copy views, and with `dynamic` every test message
//! goes through `DynamicMessage` and a descriptor pool.

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

    pub fn run() -> io::Result<()> {
        // `FASTRS_CONFORMANCE_MODE=size`: answer with size-mode code.
        let answer = match std::env::var("FASTRS_CONFORMANCE_MODE").as_deref() {
            Ok("size") => fastrs_conformance::size::answer,
            Ok("view") => fastrs_conformance::speed::answer_views,
            Ok("dynamic") => fastrs_conformance::dynamic::answer,
            Ok("speed") | Err(_) => fastrs_conformance::speed::answer,
            Ok(other) => {
                return Err(io::Error::other(format!(
                    "FASTRS_CONFORMANCE_MODE is speed, size, view or dynamic, not {other}"
                )))
            }
        };
        let (stdin, stdout) = (io::stdin(), io::stdout());
        let (mut input, mut output) = (stdin.lock(), stdout.lock());
        let mut request_bytes = Vec::new();
        let mut response_bytes = Vec::new();
        while let Some(len) = read_len(&mut input)? {
            request_bytes.resize(len, 0);
            input.read_exact(&mut request_bytes)?;
            response_bytes.clear();
            answer(&request_bytes, &mut response_bytes);
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
