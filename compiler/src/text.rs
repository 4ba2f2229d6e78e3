//! The shortest `%g` form of a float that reads back as the same value, as
//! protoc writes defaults into descriptors. (C-escaped bytes are the text
//! format's escaping: `fastrs::text::c_escape`.)

/// A double as protoc prints it: `%.15g`, or `%.17g` when 15 digits do not
/// read back as the same value; `inf`, `-inf` and `nan` by name.
pub fn shortest_double(value: f64) -> String {
    if let Some(named) = named(value) {
        return named.to_owned();
    }
    let short = format_g(value, 15);
    if short.parse::<f64>().ok() == Some(value) {
        return short;
    }
    format_g(value, 17)
}

/// A float as protoc prints it: `%.6g`, or `%.9g` when 6 digits do not read
/// back as the same float.
pub fn shortest_float(value: f32) -> String {
    if let Some(named) = named(value as f64) {
        return named.to_owned();
    }
    let short = format_g(value as f64, 6);
    if short.parse::<f32>().ok() == Some(value) {
        return short;
    }
    format_g(value as f64, 9)
}

fn named(value: f64) -> Option<&'static str> {
    if value.is_nan() {
        Some("nan")
    } else if value == f64::INFINITY {
        Some("inf")
    } else if value == f64::NEG_INFINITY {
        Some("-inf")
    } else {
        None
    }
}

/// C's `%.{precision}g` of a finite value.
fn format_g(value: f64, precision: usize) -> String {
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let scientific = format!("{:.*e}", precision - 1, value);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", strip_zeros(mantissa), exponent.abs());
    }
    let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
    strip_zeros(&format!("{value:.decimals$}")).to_owned()
}

/// `1.500` → `1.5`, `2.000` → `2`.
fn strip_zeros(number: &str) -> &str {
    if !number.contains('.') {
        return number;
    }
    number.trim_end_matches('0').trim_end_matches('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_c_does() {
        for (value, text) in [
            (1.5, "1.5"),
            (100.0, "100"),
            (0.1, "0.1"),
            (1e20, "1e+20"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-2.25, "-2.25"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(shortest_double(value), text);
        }
        assert_eq!(shortest_float(0.1), "0.1");
        assert_eq!(shortest_float(3.4028235e38), "3.40282347e+38");
    }
}
