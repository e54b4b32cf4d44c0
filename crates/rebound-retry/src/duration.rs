//! The spec's duration forms, read and written without a dependency.
//!
//! A duration is one or more `<number><unit>` parts, optionally separated by spaces, whose sum
//! it is (`100ms`, `1.5s`, `1m30s`, `2h 37min`); `0` alone is zero. Numbers are decimal, with an
//! optional fraction that must come to whole nanoseconds (`0.001h` is 3.6 s). Units as humantime
//! 2 reads them (what this crate accepted before it parsed durations itself): `ns`/`nsec`/`nanos`,
//! `us`/`µs`/`usec`, `ms`/`msec`/`millis`, `s`/`sec`/`secs`/`second`/`seconds`,
//! `m`/`min`/`mins`/`minute`/`minutes`, `h`/`hr`/`hrs`/`hour`/`hours`, `d`/`day`/`days`,
//! `w`/`wk`/`wks`/`week`/`weeks`, `M`/`month`/`months` (30.44 days), `y`/`yr`/`yrs`/`year`/`years`
//! (365.25 days). Written back, a duration is its parts from years down to nanoseconds without
//! spaces (`1m30s`, `1s500ms`, `2days`), humantime's output with the spaces taken out.

use crate::prelude::*;
use core::time::Duration;

const NS_PER_S: u128 = 1_000_000_000;
const MONTH_S: u64 = 2_630_016;
const YEAR_S: u64 = 31_557_600;

/// Nanoseconds in one of `unit`, `None` for an unknown unit.
fn unit_ns(unit: &str) -> Option<u128> {
    Some(match unit {
        "nanos" | "nsec" | "ns" => 1,
        "usec" | "us" | "µs" => 1_000,
        "millis" | "msec" | "ms" => 1_000_000,
        "seconds" | "second" | "secs" | "sec" | "s" => NS_PER_S,
        "minutes" | "minute" | "min" | "mins" | "m" => 60 * NS_PER_S,
        "hours" | "hour" | "hr" | "hrs" | "h" => 3_600 * NS_PER_S,
        "days" | "day" | "d" => 86_400 * NS_PER_S,
        "weeks" | "week" | "wk" | "wks" | "w" => 604_800 * NS_PER_S,
        "months" | "month" | "M" => u128::from(MONTH_S) * NS_PER_S,
        "years" | "year" | "yr" | "yrs" | "y" => u128::from(YEAR_S) * NS_PER_S,
        _ => return None,
    })
}

/// Reads a duration in the forms above; `None` for anything else, including a sum past
/// `Duration::MAX` or a fraction finer than a nanosecond.
pub(crate) fn parse(s: &str) -> Option<Duration> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if s == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = s;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let (ns, tail) = part(rest)?;
        total = total.checked_add(ns)?;
        rest = tail.trim_start();
    }
    let secs = u64::try_from(total / NS_PER_S).ok()?;
    Some(Duration::new(secs, (total % NS_PER_S) as u32))
}

/// One `<number><unit>` part at the start of `s`: its nanoseconds and what follows it.
fn part(s: &str) -> Option<(u128, &str)> {
    let digits = |t: &str| t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let int_len = digits(s);
    let (int, mut rest) = s.split_at(int_len);
    let mut frac = "";
    if let Some(after) = rest.strip_prefix('.') {
        let n = digits(after);
        (frac, rest) = after.split_at(n);
        if frac.is_empty() {
            return None;
        }
    }
    if int.is_empty() || frac.len() > 19 {
        return None;
    }
    rest = rest.trim_start();
    let unit_len = rest.find(|c: char| c.is_ascii_digit() || c.is_whitespace()).unwrap_or(rest.len());
    let (unit, rest) = rest.split_at(unit_len);
    let per = unit_ns(unit)?;
    let whole = int.parse::<u64>().ok().and_then(|n| u128::from(n).checked_mul(per))?;
    let mut fraction = 0;
    if !frac.is_empty() {
        let scale = 10u128.pow(frac.len() as u32);
        let scaled = frac.parse::<u128>().ok()?.checked_mul(per)?;
        if scaled % scale != 0 {
            return None;
        }
        fraction = scaled / scale;
    }
    Some((whole.checked_add(fraction)?, rest))
}

/// Writes `d` as its parts without spaces (`0s` for zero).
pub(crate) fn format(d: Duration) -> String {
    if d.is_zero() {
        return String::from("0s");
    }
    let mut out = String::new();
    let secs = d.as_secs();
    let nanos = d.subsec_nanos();
    let (years, rem) = (secs / YEAR_S, secs % YEAR_S);
    let (months, rem) = (rem / MONTH_S, rem % MONTH_S);
    let (days, rem) = (rem / 86_400, rem % 86_400);
    let plural = [(years, "year"), (months, "month"), (days, "day")];
    for (n, name) in plural {
        if n > 0 {
            out.push_str(&format!("{n}{name}{}", if n > 1 { "s" } else { "" }));
        }
    }
    let parts = [
        (rem / 3_600, "h"),
        (rem % 3_600 / 60, "m"),
        (rem % 60, "s"),
        (u64::from(nanos / 1_000_000), "ms"),
        (u64::from(nanos / 1_000 % 1_000), "us"),
        (u64::from(nanos % 1_000), "ns"),
    ];
    for (n, unit) in parts {
        if n > 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{format, parse};
    use core::time::Duration;

    #[test]
    fn reads_the_spec_forms() {
        assert_eq!(parse("100ms"), Some(Duration::from_millis(100)));
        assert_eq!(parse("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(parse("2h 37min"), Some(Duration::from_secs(9_420)));
        assert_eq!(parse("1.5s"), Some(Duration::from_millis(1_500)));
        assert_eq!(parse("0"), Some(Duration::ZERO));
        assert_eq!(parse("1 s"), Some(Duration::from_secs(1)));
    }

    #[test]
    fn refuses_what_is_not_a_duration() {
        for bad in ["", "s", "10", "1.s", ".5s", "1x", "1.0000000001s", "-1s", "1e3ms", "1s-"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
        assert_eq!(parse("18446744073709551615y"), None);
    }

    #[test]
    fn writes_parts_without_spaces() {
        assert_eq!(format(Duration::ZERO), "0s");
        assert_eq!(format(Duration::from_millis(1_500)), "1s500ms");
        assert_eq!(format(Duration::from_secs(2 * 86_400 + 60)), "2days1m");
        assert_eq!(format(Duration::from_nanos(1_001)), "1us1ns");
    }

    proptest::proptest! {
        /// Reads and writes as humantime 2 did (the dependency this module replaced), and what it
        /// writes reads back to the same duration.
        #[test]
        fn matches_humantime(secs in 0u64..=u64::from(u32::MAX) * 8, nanos in 0u32..1_000_000_000) {
            let d = Duration::new(secs, nanos);
            let theirs = humantime::format_duration(d).to_string();
            proptest::prop_assert_eq!(format(d), theirs.replace(' ', ""));
            proptest::prop_assert_eq!(parse(&theirs), Some(d));
            proptest::prop_assert_eq!(parse(&format(d)), Some(d));
        }

        #[test]
        fn reads_what_humantime_reads(s in "[0-9]{1,6}(\\.[0-9]{1,3})? ?(ns|us|ms|s|m|min|h|d|w|M|y|days|secs|x)") {
            // Every duration humantime read reads the same; without a fraction, so does every
            // refusal. (humantime refuses some exact fractions, `0.001h`; they are read here.)
            match humantime::parse_duration(&s) {
                Ok(d) => proptest::prop_assert_eq!(parse(&s), Some(d)),
                Err(_) if !s.contains('.') => proptest::prop_assert_eq!(parse(&s), None),
                Err(_) => {}
            }
        }
    }
}
