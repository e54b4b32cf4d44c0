//! The `FROM..TO:STEP` range grammar of `--clients` (e.g. `50..1000:50`, both ends included).

use std::ops::RangeInclusive;

/// Parses `FROM..TO:STEP` (or a single number) into the listed values.
///
/// # Errors
/// A message naming the grammar and the valid range: integers ≥ 1, FROM ≤ TO, STEP ≥ 1.
pub fn parse_range(s: &str) -> Result<Vec<u32>, String> {
    let expected = "FROM..TO:STEP with integers FROM <= TO, all >= 1 (e.g. 50..1000:50), or one integer";
    let bad = || format!("invalid range `{s}`: must be {expected}");
    let num = |v: &str| v.trim().parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(bad);
    let Some((from, rest)) = s.split_once("..") else {
        return Ok(vec![num(s)?]);
    };
    let (to, step) = rest.split_once(':').unwrap_or((rest, "1"));
    let (from, to, step) = (num(from)?, num(to)?, num(step)?);
    if from > to {
        return Err(bad());
    }
    Ok(RangeInclusive::new(from, to).step_by(step as usize).collect())
}

#[cfg(test)]
mod tests {
    use super::parse_range;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("50..200:50").unwrap(), [50, 100, 150, 200]);
        assert_eq!(parse_range("10..25:10").unwrap(), [10, 20]);
        assert_eq!(parse_range("7").unwrap(), [7]);
        for bad in ["0..10:1", "10..5:1", "1..10:0", "a..b", "", "5..10:x"] {
            assert!(parse_range(bad).unwrap_err().contains("FROM..TO:STEP"), "{bad}");
        }
    }
}

/// A list of counts parsed from the range grammar, as a single clap value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts(pub Vec<u32>);

impl std::str::FromStr for Counts {
    type Err = String;
    fn from_str(s: &str) -> Result<Counts, String> {
        parse_range(s).map(Counts)
    }
}
