//! Configuration errors.
//!
//! Every policy, jitter and responsive-backoff configuration is validated once, when it is built
//! (or parsed from a spec). A bad value gives a [`ConfigError`] that names the field, the value
//! that was given and the valid range, so that a user never has to guess. Nothing is clamped
//! silently and nothing panics.

use crate::prelude::*;
use core::fmt;

/// A policy, jitter or spec that cannot be built.
///
/// The `Display` form names the field and the valid range, for example
/// ``invalid `factor` = 0.5: must be a finite number >= 1``.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// A field has a value outside its valid range.
    Invalid {
        /// The field (spec key), e.g. `factor`.
        field: &'static str,
        /// The value as given.
        value: String,
        /// The valid range in words, e.g. `a finite number >= 1`.
        expected: &'static str,
    },
    /// A spec names a key the policy kind does not have.
    UnknownKey {
        /// The key as written.
        key: String,
        /// The keys this kind accepts.
        valid: &'static str,
    },
    /// A spec names an unknown policy kind.
    UnknownKind {
        /// The kind as written.
        kind: String,
    },
    /// The same key appears twice in a spec.
    DuplicateKey {
        /// The key as written.
        key: String,
    },
    /// A spec entry is not of the form `key=value`.
    Syntax {
        /// The offending entry.
        entry: String,
    },
    /// Two fields contradict each other (e.g. `cap` below `base`).
    Conflict {
        /// What is wrong, in words that name both fields.
        message: String,
    },
}

impl ConfigError {
    pub(crate) fn invalid(field: &'static str, value: impl fmt::Display, expected: &'static str) -> Self {
        ConfigError::Invalid { field, value: value.to_string(), expected }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Invalid { field, value, expected } => {
                write!(f, "invalid `{field}` = {value}: must be {expected}")
            }
            ConfigError::UnknownKey { key, valid } => {
                write!(f, "unknown key `{key}`; valid keys: {valid}")
            }
            ConfigError::UnknownKind { kind } => write!(
                f,
                "unknown policy kind `{kind}`; valid kinds: constant, linear, exponential, responsive"
            ),
            ConfigError::DuplicateKey { key } => write!(f, "key `{key}` is given twice"),
            ConfigError::Syntax { entry } => {
                write!(f, "malformed spec entry `{entry}`: expected key=value")
            }
            ConfigError::Conflict { message } => f.write_str(message),
        }
    }
}

impl core::error::Error for ConfigError {}
