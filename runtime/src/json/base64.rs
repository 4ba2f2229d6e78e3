//! Base64 for `bytes` fields: standard alphabet with padding on output; the
//! standard or URL-safe alphabet, padded or not, on input.

use core::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Displays bytes as standard padded base64, in chunks (no allocation).
pub struct Standard<'a>(pub &'a [u8]);

impl fmt::Display for Standard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = [0u8; 256];
        for block in self.0.chunks(out.len() / 4 * 3) {
            let mut n = 0;
            for group in block.chunks(3) {
                let b = [group[0], *group.get(1).unwrap_or(&0), *group.get(2).unwrap_or(&0)];
                let word = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
                for (i, slot) in out[n..n + 4].iter_mut().enumerate() {
                    *slot = if i <= group.len() {
                        ALPHABET[(word >> (18 - 6 * i) & 63) as usize]
                    } else {
                        b'='
                    };
                }
                n += 4;
            }
            // The alphabet and `=` are ASCII.
            f.write_str(core::str::from_utf8(&out[..n]).map_err(|_| fmt::Error)?)?;
        }
        Ok(())
    }
}

/// The 6-bit value of a character of either alphabet.
fn sextet(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    }))
}

/// Decodes base64 in either alphabet, with or without padding. `None` for
/// anything else (stray characters, a lone trailing character, bad padding).
#[must_use]
pub fn decode(text: &str) -> Option<alloc::vec::Vec<u8>> {
    let bytes = text.as_bytes();
    let data = match bytes {
        [rest @ .., b'=', b'='] if bytes.len().is_multiple_of(4) => rest,
        [rest @ .., b'='] if bytes.len().is_multiple_of(4) => rest,
        _ => bytes,
    };
    if data.len() % 4 == 1 {
        return None;
    }
    let mut out = alloc::vec::Vec::with_capacity(data.len() / 4 * 3 + 2);
    for group in data.chunks(4) {
        let mut word = 0u32;
        for &c in group {
            word = word << 6 | sextet(c)?;
        }
        for _ in group.len()..4 {
            word <<= 6;
        }
        let decoded = word.to_be_bytes();
        out.extend_from_slice(&decoded[1..group.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn round_trips_every_length() {
        let data: alloc::vec::Vec<u8> = (0..=255u8).collect();
        for n in 0..200 {
            let text = Standard(&data[..n]).to_string();
            assert_eq!(text.len() % 4, 0);
            assert_eq!(decode(&text).as_deref(), Some(&data[..n]), "{n}");
            assert_eq!(decode(text.trim_end_matches('=')).as_deref(), Some(&data[..n]));
        }
    }

    #[test]
    fn known_values_and_alphabets() {
        assert_eq!(Standard(b"foobar").to_string(), "Zm9vYmFy");
        assert_eq!(Standard(b"fo").to_string(), "Zm8=");
        assert_eq!(Standard(&[0xfb, 0xff]).to_string(), "+/8=");
        assert_eq!(decode("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode("-_8=").unwrap(), [0xfb, 0xff]);
        for bad in ["Zm9v!", "Z", "Zm9vY", "Zm=9", "=", "Zm8==="] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
