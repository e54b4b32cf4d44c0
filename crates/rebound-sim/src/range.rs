//! The count-range grammar of the lab's sweeps: `N`, `A..B` or `A..B:STEP`, both ends included
//! (`rebound sweep --clients 50..1000:50`, `rebound map --loads 50..145:5`,
//! `rebound contend --clients 10..190:10`).

use std::fmt;
use std::str::FromStr;

/// Counts `start..=end` in steps of `step`, with `1 <= start <= end` and `step >= 1`.
///
/// ```
/// use rebound_sim::range::Counts;
/// assert_eq!("50..200:50".parse::<Counts>()?.values(), [50, 100, 150, 200]);
/// assert_eq!("7".parse::<Counts>()?.values(), [7]);
/// assert!("0..10".parse::<Counts>().unwrap_err().to_string().contains(">= 1"));
/// # Ok::<(), rebound_sim::range::RangeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    start: u32,
    end: u32,
    step: u32,
}

/// A range that cannot be: the text as given and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeError {
    /// The range as written.
    pub value: String,
    /// What is wrong, naming the valid form or bound.
    pub why: &'static str,
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid range `{}`: {}", self.value, self.why)
    }
}

impl std::error::Error for RangeError {}

impl Counts {
    /// A validated range.
    ///
    /// # Errors
    /// Unless `1 <= start <= end` and `step >= 1`.
    pub fn new(start: u32, end: u32, step: u32) -> Result<Counts, RangeError> {
        let bad = |why| Err(RangeError { value: format!("{start}..{end}:{step}"), why });
        if start == 0 {
            return bad("the first count must be >= 1");
        }
        if end < start {
            return bad("the end must be >= the start");
        }
        if step == 0 {
            return bad("the step must be >= 1");
        }
        Ok(Counts { start, end, step })
    }

    /// The first count.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// The last count asked for (the last value listed may be smaller, at a step's boundary).
    pub fn end(&self) -> u32 {
        self.end
    }

    /// How many counts the range holds, computed without listing them (so a caller can bound
    /// a grid before allocating it).
    pub fn count(&self) -> u64 {
        u64::from((self.end - self.start) / self.step) + 1
    }

    /// The counts, in increasing order.
    pub fn values(&self) -> Vec<u32> {
        (self.start..=self.end).step_by(self.step as usize).collect()
    }
}

impl FromStr for Counts {
    type Err = RangeError;

    fn from_str(s: &str) -> Result<Counts, RangeError> {
        let syntax = || RangeError {
            value: s.to_string(),
            why: "expected N, A..B or A..B:STEP with integers, e.g. 10..190:10",
        };
        let num = |t: &str| t.trim().parse::<u32>().map_err(|_| syntax());
        let (range, step) = match s.split_once(':') {
            Some((r, st)) => (r, num(st)?),
            None => (s, 1),
        };
        match range.split_once("..") {
            Some((a, b)) => Counts::new(num(a)?, num(b)?, step),
            None if !s.contains(':') => {
                let n = num(range)?;
                Counts::new(n, n, 1)
            }
            None => Err(syntax()),
        }
        .map_err(|e| RangeError { value: s.to_string(), why: e.why })
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}:{}", self.start, self.end, self.step)
    }
}

#[cfg(test)]
mod tests {
    use super::Counts;

    #[test]
    fn ranges() {
        let v = |s: &str| s.parse::<Counts>().unwrap().values();
        assert_eq!(v("50..200:50"), [50, 100, 150, 200]);
        assert_eq!(v("10..25:10"), [10, 20]);
        assert_eq!(v("3..5"), [3, 4, 5]);
        assert_eq!(v("7"), [7]);
        for r in ["50..200:50", "10..25:10", "3..5", "7", "1..4294967295:1"] {
            let c = r.parse::<Counts>().unwrap();
            if c.count() < 1000 {
                assert_eq!(c.count(), c.values().len() as u64, "{r}");
            }
        }
        assert_eq!("1..4294967295:1".parse::<Counts>().unwrap().count(), 4_294_967_295);
        for (bad, why) in [
            ("0..10:1", ">= 1"),
            ("10..5:1", "end must be"),
            ("1..10:0", "step must be"),
            ("a..b", "A..B:STEP"),
            ("", "A..B:STEP"),
            ("5..10:x", "A..B:STEP"),
            ("5:2", "A..B:STEP"),
        ] {
            let e = bad.parse::<Counts>().unwrap_err();
            assert!(e.to_string().contains(why) && e.value == bad, "{bad}: {e}");
        }
    }
}
