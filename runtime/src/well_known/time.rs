//! `Timestamp` and `Duration` to and from `std::time` / `core::time`.

use core::fmt;

use super::{Duration, Timestamp};

const NANOS_PER_SECOND: i32 = 1_000_000_000;

/// A time value that the target type cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeError {
    /// A negative protobuf `Duration` has no `core::time::Duration` equivalent.
    Negative,
    /// Seconds out of the target's range.
    OutOfRange,
    /// `nanos` outside `0..1_000_000_000` (Timestamp) or of another sign than
    /// `seconds` (Duration), as protobuf forbids.
    InvalidNanos,
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeError::Negative => "negative duration",
            TimeError::OutOfRange => "time out of range",
            TimeError::InvalidNanos => "nanos out of range for protobuf time",
        })
    }
}

impl core::error::Error for TimeError {}

impl TryFrom<core::time::Duration> for Duration {
    type Error = TimeError;

    fn try_from(d: core::time::Duration) -> Result<Self, TimeError> {
        let seconds = i64::try_from(d.as_secs()).map_err(|_| TimeError::OutOfRange)?;
        let nanos = i32::try_from(d.subsec_nanos()).map_err(|_| TimeError::InvalidNanos)?;
        Ok(Duration {
            seconds,
            nanos,
            ..Default::default()
        })
    }
}

impl TryFrom<Duration> for core::time::Duration {
    type Error = TimeError;

    fn try_from(d: Duration) -> Result<Self, TimeError> {
        if d.nanos.abs() >= NANOS_PER_SECOND || (d.seconds > 0 && d.nanos < 0) || (d.seconds < 0 && d.nanos > 0) {
            return Err(TimeError::InvalidNanos);
        }
        if d.seconds < 0 || d.nanos < 0 {
            return Err(TimeError::Negative);
        }
        let seconds = u64::try_from(d.seconds).map_err(|_| TimeError::OutOfRange)?;
        let nanos = u32::try_from(d.nanos).map_err(|_| TimeError::InvalidNanos)?;
        Ok(core::time::Duration::new(seconds, nanos))
    }
}

#[cfg(feature = "std")]
impl From<std::time::SystemTime> for Timestamp {
    fn from(t: std::time::SystemTime) -> Self {
        let (seconds, nanos) = match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => (after.as_secs() as i64, after.subsec_nanos() as i32),
            Err(e) => {
                // Before the epoch: whole seconds down, nanos up, as protobuf wants.
                let before = e.duration();
                let (s, n) = (before.as_secs() as i64, before.subsec_nanos() as i32);
                if n == 0 {
                    (-s, 0)
                } else {
                    (-s - 1, NANOS_PER_SECOND - n)
                }
            }
        };
        Timestamp {
            seconds,
            nanos,
            ..Default::default()
        }
    }
}

#[cfg(feature = "std")]
impl TryFrom<Timestamp> for std::time::SystemTime {
    type Error = TimeError;

    fn try_from(t: Timestamp) -> Result<Self, TimeError> {
        let nanos = u32::try_from(t.nanos)
            .ok()
            .filter(|&n| n < NANOS_PER_SECOND as u32)
            .ok_or(TimeError::InvalidNanos)?;
        let epoch = std::time::UNIX_EPOCH;
        let time = if t.seconds >= 0 {
            epoch.checked_add(core::time::Duration::new(t.seconds.unsigned_abs(), nanos))
        } else {
            epoch
                .checked_sub(core::time::Duration::from_secs(t.seconds.unsigned_abs()))
                .and_then(|s| s.checked_add(core::time::Duration::from_nanos(u64::from(nanos))))
        };
        time.ok_or(TimeError::OutOfRange)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_convert_both_ways() {
        let d = core::time::Duration::new(3, 500);
        let p = Duration::try_from(d).unwrap();
        assert_eq!((p.seconds, p.nanos), (3, 500));
        assert_eq!(core::time::Duration::try_from(p), Ok(d));
        let negative = Duration {
            seconds: -1,
            nanos: -5,
            ..Default::default()
        };
        assert_eq!(core::time::Duration::try_from(negative), Err(TimeError::Negative));
        let mixed = Duration {
            seconds: 1,
            nanos: -5,
            ..Default::default()
        };
        assert_eq!(core::time::Duration::try_from(mixed), Err(TimeError::InvalidNanos));
    }

    #[cfg(feature = "std")]
    #[test]
    fn timestamps_convert_both_ways_around_the_epoch() {
        use std::time::{SystemTime, UNIX_EPOCH};
        let after = UNIX_EPOCH + core::time::Duration::new(10, 7);
        let ts = Timestamp::from(after);
        assert_eq!((ts.seconds, ts.nanos), (10, 7));
        assert_eq!(SystemTime::try_from(ts), Ok(after));
        let before = UNIX_EPOCH - core::time::Duration::new(1, 250_000_000);
        let ts = Timestamp::from(before);
        assert_eq!((ts.seconds, ts.nanos), (-2, 750_000_000));
        assert_eq!(SystemTime::try_from(ts), Ok(before));
        let bad = Timestamp {
            seconds: 0,
            nanos: -1,
            ..Default::default()
        };
        assert_eq!(SystemTime::try_from(bad), Err(TimeError::InvalidNanos));
    }
}
