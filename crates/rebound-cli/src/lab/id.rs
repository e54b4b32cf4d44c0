//! Run ids (issue 38): the lab's run numbers started again at 1 when it restarted, so a page's
//! history held two "#1"; a UUIDv7 is unique across restarts and sorts by time.

/// A run's id: a UUIDv7 (RFC 9562), time-ordered and unique across restarts of the lab, so
/// that a page's history never holds two runs under one id (issue 38). Its text sorts as its
/// time: the oldest run is the first of a sorted map.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// A new id, from the clock and random bits.
    pub fn new() -> RunId {
        RunId(uuid::Uuid::now_v7().hyphenated().to_string())
    }

    /// The id written in `text` (any case, hyphenated or not), if it is a UUID.
    pub fn parse(text: &str) -> Option<RunId> {
        uuid::Uuid::try_parse(text).ok().map(|u| RunId(u.hyphenated().to_string()))
    }
}

impl std::fmt::Display for RunId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
