//! Errors building a [`RedisBudget`](crate::RedisBudget).

/// A setting out of range, or a URL that is not a Redis URL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is out of its valid range.
    #[error("invalid {field} {value}: expected {expected}")]
    Config {
        /// The setting's name.
        field: &'static str,
        /// The value given.
        value: String,
        /// The valid range.
        expected: &'static str,
    },
    /// The token bucket's settings are out of range, or a non-Redis budget spec is invalid
    /// (rebound's own message, naming the field and its range).
    #[error(transparent)]
    Spec(rebound_retry::ConfigError),
    /// The URL could not be parsed as a Redis URL.
    #[error("invalid Redis URL {url:?}: {source}")]
    Url {
        /// The URL given.
        url: String,
        /// Why the redis crate refused it.
        source: redis::RedisError,
    },
}

impl Error {
    pub(crate) fn config(field: &'static str, value: String, expected: &'static str) -> Self {
        Error::Config { field, value, expected }
    }
}
