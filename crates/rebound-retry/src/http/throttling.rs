//! Which failures are throttling: HTTP 429 and the AWS SDKs' throttling error codes.
//!
//! Why: a throttled call says "too fast", not "broken", and the 2026 AWS retry quota charges a
//! throttling retry 5 against 14 for a transient one; an executor that cannot tell them apart
//! drains its quota almost three times faster under throttling. Give one of these to
//! [`Retry::classify`](crate::Retry::classify).

use crate::budget::RetryCause;

/// The AWS SDKs' throttling error codes: botocore `botocore/retries/standard.py`,
/// `ThrottledRetryableChecker._THROTTLED_ERROR_CODES` ("the union of all error codes we've seen
/// that represent a throttled error"), in its order.
pub const AWS_THROTTLING_CODES: [&str; 14] = [
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
];

/// HTTP 429 Too Many Requests (RFC 6585 §4) is [`RetryCause::Throttling`]; every other status
/// is [`RetryCause::Error`].
///
/// ```
/// use rebound_retry::budget::RetryCause;
/// use rebound_retry::http::classify_status;
///
/// assert_eq!(classify_status(429), RetryCause::Throttling);
/// assert_eq!(classify_status(503), RetryCause::Error);
/// ```
pub const fn classify_status(status: u16) -> RetryCause {
    if status == 429 {
        RetryCause::Throttling
    } else {
        RetryCause::Error
    }
}

/// Whether `code` (an AWS error code, e.g. the `__type` or `<Code>` of an error response) is
/// one of [`AWS_THROTTLING_CODES`]; compared exactly, as botocore does.
pub fn is_aws_throttling_code(code: &str) -> bool {
    AWS_THROTTLING_CODES.contains(&code)
}

/// An AWS response's class: [`RetryCause::Throttling`] for a throttling error code
/// ([`AWS_THROTTLING_CODES`]) or a 429, [`RetryCause::Error`] otherwise.
///
/// ```
/// use rebound_retry::budget::RetryCause;
/// use rebound_retry::http::classify_aws;
///
/// assert_eq!(classify_aws(400, Some("ThrottlingException")), RetryCause::Throttling);
/// assert_eq!(classify_aws(503, Some("SlowDown")), RetryCause::Throttling);
/// assert_eq!(classify_aws(500, Some("InternalError")), RetryCause::Error);
/// ```
pub fn classify_aws(status: u16, code: Option<&str>) -> RetryCause {
    match code {
        Some(c) if is_aws_throttling_code(c) => RetryCause::Throttling,
        _ => classify_status(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_and_429_is_throttling() {
        for code in AWS_THROTTLING_CODES {
            assert_eq!(classify_aws(400, Some(code)), RetryCause::Throttling, "{code}");
        }
        assert_eq!(classify_aws(429, None), RetryCause::Throttling);
        for (status, code) in [(500, None), (503, Some("ServiceUnavailable")), (400, Some("throttling"))] {
            assert_eq!(classify_aws(status, code), RetryCause::Error, "{status} {code:?}");
        }
    }
}
