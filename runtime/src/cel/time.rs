//! CEL's `timestamp` and `duration`: parsing, printing, arithmetic within
//! their ranges, and the calendar accessors (`getFullYear`, `getHours`,
//! ...) in UTC, at a fixed offset (`+05:30`) or in a named time zone
//! (`Australia/Sydney`, read from the system's zoneinfo files).

use core::fmt;
use std::string::String;
use std::vec::Vec;

use super::error::EvalError;

/// Seconds from 1970 of 0001-01-01T00:00:00Z.
pub const MIN_SECONDS: i64 = -62_135_596_800;
/// Seconds from 1970 of 9999-12-31T23:59:59Z.
pub const MAX_SECONDS: i64 = 253_402_300_799;

/// An instant: seconds and nanoseconds from 1970-01-01T00:00:00Z, from
/// year 1 to year 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Whole seconds from the epoch.
    pub seconds: i64,
    /// Nanoseconds after them, `0..1_000_000_000`.
    pub nanos: i32,
}

/// A span of time, in nanoseconds. Durations CEL makes (by `duration()`
/// or arithmetic) are within ±2^63 nanoseconds, about 292 years, as
/// cel-go's are; a `google.protobuf.Duration` read from a message keeps
/// its value, up to the ±10,000 years protobuf allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    /// The span.
    pub nanos: i128,
}

fn range_error() -> EvalError {
    EvalError::new("timestamp out of range")
}

impl Timestamp {
    /// The instant `seconds` and `nanos` (`0..1_000_000_000`) from the
    /// epoch, unchecked: for constants known to be in range.
    #[must_use]
    pub const fn at(seconds: i64, nanos: i32) -> Timestamp {
        Timestamp { seconds, nanos }
    }

    /// The instant, if in range (nanos are normalized).
    ///
    /// # Errors
    /// Outside years 1 to 9999.
    pub fn new(seconds: i64, nanos: i64) -> Result<Timestamp, EvalError> {
        let seconds = seconds
            .checked_add(nanos.div_euclid(1_000_000_000))
            .ok_or_else(range_error)?;
        let nanos = i32::try_from(nanos.rem_euclid(1_000_000_000)).map_err(|_| range_error())?;
        if !(MIN_SECONDS..=MAX_SECONDS).contains(&seconds) {
            return Err(range_error());
        }
        Ok(Timestamp { seconds, nanos })
    }

    fn total_nanos(self) -> i128 {
        i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos)
    }

    fn from_total(total: i128) -> Result<Timestamp, EvalError> {
        let seconds = i64::try_from(total.div_euclid(1_000_000_000)).map_err(|_| range_error())?;
        let nanos = i64::try_from(total.rem_euclid(1_000_000_000)).map_err(|_| range_error())?;
        Timestamp::new(seconds, nanos)
    }

    /// `self + d`.
    ///
    /// # Errors
    /// The result is out of range.
    pub fn checked_add(self, d: Duration) -> Result<Timestamp, EvalError> {
        Timestamp::from_total(self.total_nanos() + d.nanos)
    }

    /// `self - d`.
    ///
    /// # Errors
    /// The result is out of range.
    pub fn checked_sub(self, d: Duration) -> Result<Timestamp, EvalError> {
        Timestamp::from_total(self.total_nanos() - d.nanos)
    }

    /// `self - other`.
    ///
    /// # Errors
    /// The span does not fit a duration.
    pub fn since(self, other: Timestamp) -> Result<Duration, EvalError> {
        Duration::checked(self.total_nanos() - other.total_nanos())
    }

    /// Parses RFC 3339 (`2009-02-13T23:31:30Z`, `...30.5+01:00`).
    ///
    /// # Errors
    /// Not RFC 3339, or out of range.
    pub fn parse(text: &str) -> Result<Timestamp, EvalError> {
        parse_rfc3339(text).ok_or_else(|| EvalError::new(format!("timestamp parse error: {text:?}")))?
    }

    /// The instant's civil date and time at `offset` seconds from UTC.
    #[must_use]
    pub fn civil(self, offset: i64) -> Civil {
        let local = self.seconds + offset;
        let days = local.div_euclid(86_400);
        let secs = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: secs / 3600,
            minute: secs / 60 % 60,
            second: secs % 60,
            nanos: self.nanos,
            weekday: (days + 4).rem_euclid(7),
            yday: days - days_from_civil(year, 1, 1),
        }
    }
}

/// A civil date and time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    /// The year.
    pub year: i64,
    /// 1 to 12.
    pub month: i64,
    /// 1 to 31.
    pub day: i64,
    /// 0 to 23.
    pub hour: i64,
    /// 0 to 59.
    pub minute: i64,
    /// 0 to 59.
    pub second: i64,
    /// Nanoseconds.
    pub nanos: i32,
    /// 0 (Sunday) to 6.
    pub weekday: i64,
    /// Day of the year from 0.
    pub yday: i64,
}

/// Days from 1970-01-01 of a civil date (Howard Hinnant's
/// `days_from_civil`, <https://howardhinnant.github.io/date_algorithms.html>).
#[must_use]
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day from 1970-01-01 (Hinnant's `civil_from_days`).
#[must_use]
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn digits(text: &[u8], n: usize) -> Option<i64> {
    if text.len() < n || !text[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(text[..n].iter().fold(0, |acc, d| acc * 10 + i64::from(d - b'0')))
}

fn parse_rfc3339(text: &str) -> Option<Result<Timestamp, EvalError>> {
    let b = text.as_bytes();
    let year = digits(b, 4)?;
    let rest = &b[4..];
    if rest.first() != Some(&b'-') {
        return None;
    }
    let month = digits(&rest[1..], 2)?;
    if rest.get(3) != Some(&b'-') {
        return None;
    }
    let day = digits(&rest[4..], 2)?;
    if !matches!(rest.get(6), Some(b'T' | b't')) {
        return None;
    }
    let t = &rest[7..];
    let hour = digits(t, 2)?;
    let minute = digits(t.get(3..)?, 2)?;
    let second = digits(t.get(6..)?, 2)?;
    if t.get(2) != Some(&b':') || t.get(5) != Some(&b':') {
        return None;
    }
    let mut at = 8;
    let mut nanos = 0i64;
    if t.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while t.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let frac = &t[start..at];
        if frac.is_empty() || frac.len() > 9 {
            return None;
        }
        nanos = digits(frac, frac.len())? * 10i64.pow(u32::try_from(9 - frac.len()).ok()?);
    }
    let offset = match t.get(at..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), zone @ ..] if zone.len() == 5 && zone[2] == b':' => {
            let minutes = digits(zone, 2)? * 60 + digits(&zone[3..], 2)?;
            if *sign == b'-' {
                -minutes * 60
            } else {
                minutes * 60
            }
        }
        _ => return None,
    };
    let days_in = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in[usize::try_from(month - 1).ok()?]
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
    Some(Timestamp::new(seconds, nanos))
}

impl fmt::Display for Timestamp {
    /// RFC 3339 in UTC, with as many fraction digits as needed (0, 3, 6
    /// or 9), as Go's `RFC3339Nano` prints them (trailing zeros dropped).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.civil(0);
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            c.year, c.month, c.day, c.hour, c.minute, c.second
        )?;
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            write!(f, ".{}", frac.trim_end_matches('0'))?;
        }
        f.write_str("Z")
    }
}

impl Duration {
    /// The largest span: cel-go's (Go's `time.Duration`).
    pub const MAX: i64 = i64::MAX;

    /// A span of `seconds` and `nanos`, as a message holds it.
    #[must_use]
    pub fn new(seconds: i64, nanos: i64) -> Duration {
        Duration {
            nanos: i128::from(seconds) * 1_000_000_000 + i128::from(nanos),
        }
    }

    /// A span of `nanos` nanoseconds, unchecked: for constants.
    #[must_use]
    pub const fn from_nanos(nanos: i128) -> Duration {
        Duration { nanos }
    }

    /// A span CEL makes: within ±2^63 nanoseconds.
    ///
    /// # Errors
    /// It does not fit.
    pub fn checked(nanos: i128) -> Result<Duration, EvalError> {
        if i64::try_from(nanos).is_err() {
            return Err(EvalError::new("duration out of range"));
        }
        Ok(Duration { nanos })
    }

    /// Whole seconds (toward zero) and the nanoseconds left (same sign).
    #[must_use]
    pub fn parts(self) -> (i64, i32) {
        let seconds =
            i64::try_from(self.nanos / 1_000_000_000).unwrap_or(if self.nanos < 0 { i64::MIN } else { i64::MAX });
        let nanos = i32::try_from(self.nanos % 1_000_000_000).unwrap_or(0);
        (seconds, nanos)
    }

    /// Parses Go's duration syntax (`1h2m3.5s`, `-1.5h`, `100ms`, `2us`,
    /// `3ns`, `0`), as `duration()` takes it.
    ///
    /// # Errors
    /// Not a duration, or out of range.
    pub fn parse(text: &str) -> Result<Duration, EvalError> {
        parse_go_duration(text).ok_or_else(|| EvalError::new(format!("invalid duration: {text:?}")))?
    }

    /// `self + other`.
    ///
    /// # Errors
    /// It does not fit.
    pub fn checked_add(self, other: Duration) -> Result<Duration, EvalError> {
        Duration::checked(self.nanos + other.nanos)
    }

    /// `self - other`.
    ///
    /// # Errors
    /// It does not fit.
    pub fn checked_sub(self, other: Duration) -> Result<Duration, EvalError> {
        Duration::checked(self.nanos - other.nanos)
    }
}

fn parse_go_duration(text: &str) -> Option<Result<Duration, EvalError>> {
    let (negative, mut rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Some(Ok(Duration { nanos: 0 }));
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let whole_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let whole: i128 = if whole_end == 0 {
            0
        } else {
            rest[..whole_end].parse().ok()?
        };
        rest = &rest[whole_end..];
        let mut frac = "";
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(|c: char| !c.is_ascii_digit()).unwrap_or(after.len());
            frac = &after[..end];
            rest = &after[end..];
        }
        if whole_end == 0 && frac.is_empty() {
            return None;
        }
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit: i128 = match &rest[..unit_end] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total = total.checked_add(whole.checked_mul(unit)?)?;
        // The fraction, exactly to the nanosecond.
        let mut scale = unit;
        for d in frac.bytes() {
            scale /= 10;
            if scale == 0 {
                break;
            }
            total += i128::from(d - b'0') * scale;
        }
        if total > i128::from(i64::MAX) + 1 {
            return Some(Err(EvalError::new("duration out of range")));
        }
    }
    let total = if negative { -total } else { total };
    Some(Duration::checked(total))
}

impl fmt::Display for Duration {
    /// Seconds with as few fraction digits as needed: `1.5s`, `3600s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (seconds, nanos) = self.parts();
        if nanos == 0 {
            return write!(f, "{seconds}s");
        }
        let sign = if self.nanos < 0 { "-" } else { "" };
        let frac = format!("{:09}", nanos.unsigned_abs());
        write!(f, "{sign}{}.{}s", seconds.unsigned_abs(), frac.trim_end_matches('0'))
    }
}

/// A time zone for the calendar accessors: `UTC`, an offset (`+05:30`,
/// `-02:00`, `02:00`), or an IANA name read from the system's zoneinfo.
///
/// # Errors
/// An offset out of range, or a name with no zoneinfo file.
pub fn zone_offset(zone: &str, at: Timestamp) -> Result<i64, EvalError> {
    if let Some(colon) = zone.find(':') {
        let hours: i64 = zone[..colon]
            .parse()
            .map_err(|_| EvalError::new(format!("invalid time zone offset: {zone}")))?;
        let minutes: i64 = zone[colon + 1..]
            .parse()
            .map_err(|_| EvalError::new(format!("invalid time zone offset: {zone}")))?;
        if !(0..=59).contains(&minutes) {
            return Err(EvalError::new(format!(
                "timezone offset minutes out of range [0, 59]: {zone}"
            )));
        }
        let total = if zone.starts_with('-') {
            hours * 60 - minutes
        } else {
            hours * 60 + minutes
        };
        return Ok(total * 60);
    }
    if zone == "UTC" || zone.is_empty() {
        return Ok(0);
    }
    zoneinfo::offset(zone, at.seconds).ok_or_else(|| EvalError::new(format!("unknown time zone {zone}")))
}

/// Named time zones, from TZif files (RFC 8536) under the system's
/// zoneinfo directory (`ZONEINFO`, else `/usr/share/zoneinfo`).
mod zoneinfo {
    use std::string::String;
    use std::vec::Vec;

    /// The offset from UTC in `name` at `seconds` from the epoch.
    pub(super) fn offset(name: &str, seconds: i64) -> Option<i64> {
        if name
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return None;
        }
        let dir = std::env::var_os("ZONEINFO").map_or_else(
            || std::path::PathBuf::from("/usr/share/zoneinfo"),
            std::path::PathBuf::from,
        );
        let data = std::fs::read(dir.join(name)).ok()?;
        Zone::parse(&data)?.offset_at(seconds)
    }

    struct Zone {
        transitions: Vec<i64>,
        /// The local time type after each transition.
        kinds: Vec<u8>,
        /// Offsets of the local time types.
        offsets: Vec<i64>,
        /// The POSIX rule for times after the last transition.
        footer: Option<String>,
    }

    fn be(b: &[u8], at: usize, n: usize) -> Option<i64> {
        let bytes = b.get(at..at + n)?;
        let v = bytes.iter().fold(0u64, |acc, x| acc << 8 | u64::from(*x));
        Some(if n == 4 {
            i64::from(u32::try_from(v).ok()?.cast_signed())
        } else {
            v.cast_signed()
        })
    }

    impl Zone {
        fn parse(data: &[u8]) -> Option<Zone> {
            if data.get(..4)? != b"TZif" {
                return None;
            }
            let version = *data.get(4)?;
            let counts = |at: usize| -> Option<[usize; 6]> {
                let mut out = [0; 6];
                for (i, slot) in out.iter_mut().enumerate() {
                    *slot = usize::try_from(be(data, at + 20 + 4 * i, 4)?).ok()?;
                }
                Some(out)
            };
            let [isutc, isstd, leap, time, types, chars] = counts(0)?;
            let v1_len = 44 + time * 5 + types * 6 + chars + leap * 8 + isstd + isutc;
            let (base, width) = if version >= b'2' { (v1_len, 8) } else { (0, 4) };
            let [isutc, isstd, leap, time, types, chars] = if version >= b'2' { counts(base)? } else { counts(0)? };
            let mut at = base + 44;
            let transitions = (0..time)
                .map(|i| be(data, at + i * width, width))
                .collect::<Option<Vec<_>>>()?;
            at += time * width;
            let kinds = data.get(at..at + time)?.to_vec();
            at += time;
            let offsets = (0..types)
                .map(|i| be(data, at + i * 6, 4))
                .collect::<Option<Vec<_>>>()?;
            at += types * 6 + chars + leap * (width + 4) + isstd + isutc;
            let footer = if version >= b'2' {
                let rest = data.get(at..)?;
                let text = std::str::from_utf8(rest).ok()?;
                text.trim_matches('\n')
                    .split('\n')
                    .next()
                    .map(String::from)
                    .filter(|s| !s.is_empty())
            } else {
                None
            };
            Some(Zone {
                transitions,
                kinds,
                offsets,
                footer,
            })
        }

        fn offset_at(&self, seconds: i64) -> Option<i64> {
            let after_last = self.transitions.last().is_none_or(|last| seconds >= *last);
            if after_last {
                if let Some(rule) = self.footer.as_deref().and_then(super::posix::Rule::parse) {
                    return Some(rule.offset_at(seconds));
                }
            }
            match self.transitions.iter().rposition(|t| *t <= seconds) {
                Some(i) => self.offsets.get(usize::from(*self.kinds.get(i)?)).copied(),
                None => self.offsets.first().copied(),
            }
        }
    }
}

/// POSIX `TZ` rules (`AEST-10AEDT,M10.1.0,M4.1.0/3`), which TZif files
/// give for times after their last transition.
mod posix {
    use super::{civil_from_days, days_from_civil};

    pub(super) struct Rule {
        std_offset: i64,
        dst: Option<(i64, Date, i64, Date, i64)>,
    }

    #[derive(Clone, Copy)]
    enum Date {
        /// `Mm.w.d`: day `d` (0 Sunday) of week `w` (5 = last) of month `m`.
        Month(i64, i64, i64),
        /// `Jn`: day 1..365, never counting February 29.
        Julian(i64),
        /// `n`: day 0..365, counting February 29.
        Day(i64),
    }

    struct Cursor<'a> {
        s: &'a [u8],
        at: usize,
    }

    impl Cursor<'_> {
        fn name(&mut self) -> Option<()> {
            if self.s.get(self.at) == Some(&b'<') {
                let end = self.s[self.at..].iter().position(|c| *c == b'>')?;
                self.at += end + 1;
            } else {
                let start = self.at;
                while self.s.get(self.at).is_some_and(u8::is_ascii_alphabetic) {
                    self.at += 1;
                }
                if self.at - start < 3 {
                    return None;
                }
            }
            Some(())
        }

        fn number(&mut self) -> Option<i64> {
            let start = self.at;
            while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
                self.at += 1;
            }
            std::str::from_utf8(&self.s[start..self.at]).ok()?.parse().ok()
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        fn time(&mut self) -> Option<i64> {
            let sign = match self.s.get(self.at) {
                Some(b'-') => {
                    self.at += 1;
                    -1
                }
                Some(b'+') => {
                    self.at += 1;
                    1
                }
                _ => 1,
            };
            let mut total = self.number()? * 3600;
            for scale in [60, 1] {
                if self.s.get(self.at) == Some(&b':') {
                    self.at += 1;
                    total += self.number()? * scale;
                }
            }
            Some(sign * total)
        }

        fn date(&mut self) -> Option<Date> {
            match self.s.get(self.at)? {
                b'M' => {
                    self.at += 1;
                    let m = self.number()?;
                    self.at += 1;
                    let w = self.number()?;
                    self.at += 1;
                    let d = self.number()?;
                    Some(Date::Month(m, w, d))
                }
                b'J' => {
                    self.at += 1;
                    Some(Date::Julian(self.number()?))
                }
                _ => Some(Date::Day(self.number()?)),
            }
        }

        /// `date[/time]`.
        fn change(&mut self) -> Option<(Date, i64)> {
            let date = self.date()?;
            let time = if self.s.get(self.at) == Some(&b'/') {
                self.at += 1;
                self.time()?
            } else {
                7200
            };
            Some((date, time))
        }
    }

    impl Rule {
        pub(super) fn parse(text: &str) -> Option<Rule> {
            let mut c = Cursor {
                s: text.as_bytes(),
                at: 0,
            };
            c.name()?;
            // POSIX offsets are west of UTC: `EST5` is UTC-5.
            let std_offset = -c.time()?;
            if c.at == c.s.len() {
                return Some(Rule { std_offset, dst: None });
            }
            c.name()?;
            let dst_offset = if c.s.get(c.at) == Some(&b',') {
                std_offset + 3600
            } else {
                -c.time()?
            };
            if c.s.get(c.at) != Some(&b',') {
                return None;
            }
            c.at += 1;
            let (start, start_time) = c.change()?;
            if c.s.get(c.at) != Some(&b',') {
                return None;
            }
            c.at += 1;
            let (end, end_time) = c.change()?;
            Some(Rule {
                std_offset,
                dst: Some((dst_offset, start, start_time, end, end_time)),
            })
        }

        pub(super) fn offset_at(&self, seconds: i64) -> i64 {
            let Some((dst_offset, start, start_time, end, end_time)) = self.dst else {
                return self.std_offset;
            };
            let (year, _, _) = civil_from_days((seconds + self.std_offset).div_euclid(86_400));
            // Both changes in UTC: the start is in standard time, the end
            // in daylight time.
            let start = day_of(year, start) * 86_400 + start_time - self.std_offset;
            let end = day_of(year, end) * 86_400 + end_time - dst_offset;
            let in_dst = if start < end {
                seconds >= start && seconds < end
            } else {
                // Southern hemisphere: daylight time spans the new year.
                seconds >= start || seconds < end
            };
            if in_dst {
                dst_offset
            } else {
                self.std_offset
            }
        }
    }

    fn leap(year: i64) -> bool {
        year % 4 == 0 && (year % 100 != 0 || year.rem_euclid(400) == 0)
    }

    /// The day from the epoch on which `date` falls in `year`.
    fn day_of(year: i64, date: Date) -> i64 {
        let jan1 = days_from_civil(year, 1, 1);
        match date {
            Date::Julian(n) => jan1 + n - 1 + i64::from(leap(year) && n >= 60),
            Date::Day(n) => jan1 + n,
            Date::Month(m, w, d) => {
                let first = days_from_civil(year, m, 1);
                let weekday = (first + 4).rem_euclid(7);
                let mut day = first + (d - weekday).rem_euclid(7) + (w - 1) * 7;
                let next_month = if m == 12 {
                    days_from_civil(year + 1, 1, 1)
                } else {
                    days_from_civil(year, m + 1, 1)
                };
                while day >= next_month {
                    day -= 7;
                }
                day
            }
        }
    }
}

/// The list of a timestamp's parts that `getX()` reads.
#[must_use]
pub fn accessor_names() -> Vec<&'static str> {
    std::vec![
        "getFullYear",
        "getMonth",
        "getDate",
        "getDayOfMonth",
        "getDayOfWeek",
        "getDayOfYear",
        "getHours",
        "getMinutes",
        "getSeconds",
        "getMilliseconds",
    ]
}

/// The part `name` of `t` in `zone` (UTC if `None`).
///
/// # Errors
/// An unknown zone, or a name that is not an accessor.
pub fn timestamp_part(t: Timestamp, name: &str, zone: Option<&str>) -> Result<i64, EvalError> {
    let offset = match zone {
        Some(z) => zone_offset(z, t)?,
        None => 0,
    };
    let c = t.civil(offset);
    Ok(match name {
        "getFullYear" => c.year,
        "getMonth" => c.month - 1,
        "getDate" => c.day,
        "getDayOfMonth" => c.day - 1,
        "getDayOfWeek" => c.weekday,
        "getDayOfYear" => c.yday,
        "getHours" => c.hour,
        "getMinutes" => c.minute,
        "getSeconds" => c.second,
        "getMilliseconds" => i64::from(c.nanos / 1_000_000),
        _ => return Err(EvalError::no_overload(name)),
    })
}

/// The part `name` of `d`: whole hours, minutes, seconds or milliseconds.
///
/// # Errors
/// A name that is not an accessor of durations.
pub fn duration_part(d: Duration, name: &str) -> Result<i64, EvalError> {
    let part = match name {
        "getHours" => d.nanos / 3_600_000_000_000,
        "getMinutes" => d.nanos / 60_000_000_000,
        "getSeconds" => d.nanos / 1_000_000_000,
        "getMilliseconds" => d.nanos % 1_000_000_000 / 1_000_000,
        _ => return Err(EvalError::no_overload(name)),
    };
    i64::try_from(part).map_err(|_| EvalError::new("duration out of range"))
}

/// Formats `t` for messages, as [`fmt::Display`] does.
#[must_use]
pub fn format_timestamp(t: Timestamp) -> String {
    t.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_and_print() {
        let t = Timestamp::parse("2009-02-13T23:31:30Z").unwrap();
        assert_eq!(t.seconds, 1_234_567_890);
        assert_eq!(t.to_string(), "2009-02-13T23:31:30Z");
        let t = Timestamp::parse("2023-02-03T23:31:20.120+01:00").unwrap();
        assert_eq!(t.to_string(), "2023-02-03T22:31:20.12Z");
        assert!(Timestamp::parse("0000-01-01T00:00:00Z").is_err());
        assert!(Timestamp::parse("10000-01-01T00:00:00Z").is_err());
        assert_eq!(
            Timestamp::parse("9999-12-31T23:59:59.999999999Z").unwrap().to_string(),
            "9999-12-31T23:59:59.999999999Z"
        );
    }

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(Duration::parse("1h45m47s").unwrap().to_string(), "6347s");
        assert_eq!(Duration::parse("-1.5s").unwrap().to_string(), "-1.5s");
        assert_eq!(Duration::parse("123.321456789s").unwrap().nanos, 123_321_456_789);
        assert_eq!(Duration::parse("1ms").unwrap().nanos, 1_000_000);
        assert!(Duration::parse("320000000000s").is_err());
        assert!(Duration::parse("1x").is_err());
    }

    #[test]
    fn calendar_parts() {
        let t = Timestamp::parse("2009-02-13T23:31:30Z").unwrap();
        assert_eq!(timestamp_part(t, "getDayOfWeek", None).unwrap(), 5);
        assert_eq!(timestamp_part(t, "getDayOfYear", None).unwrap(), 43);
        assert_eq!(timestamp_part(t, "getHours", Some("02:00")).unwrap(), 1);
        assert_eq!(timestamp_part(t, "getDayOfMonth", Some("+11:00")).unwrap(), 13);
    }

    #[test]
    fn posix_rules() {
        // Sydney: daylight time from the first Sunday of October to the
        // first Sunday of April.
        let rule = posix::Rule::parse("AEST-10AEDT,M10.1.0,M4.1.0/3").unwrap();
        let feb = Timestamp::parse("2009-02-13T23:31:30Z").unwrap();
        assert_eq!(rule.offset_at(feb.seconds), 11 * 3600);
        let july = Timestamp::parse("2009-07-13T23:31:30Z").unwrap();
        assert_eq!(rule.offset_at(july.seconds), 10 * 3600);
    }
}
