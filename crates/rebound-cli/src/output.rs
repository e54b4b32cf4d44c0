//! Standard output that never panics.
//!
//! `println!` panics when stdout cannot be written: a closed pipe (`rebound schedule ... |
//! head -1`) or a full disk (`> /dev/full`). Commands write through [`text`] instead, which
//! returns an [`OutputError`]; `main` ends a command whose reader went away quietly (status 0,
//! as `head` expects) and any other write error with one line on stderr and status 1.

use std::io::Write;

/// Standard output could not be written.
#[derive(Debug)]
pub struct OutputError(pub std::io::Error);

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for OutputError {}

impl OutputError {
    /// Whether the reader closed the pipe (EPIPE): nothing is wrong, nobody is listening.
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == std::io::ErrorKind::BrokenPipe
    }
}

/// Writes `s` to standard output as is, and flushes it (so that a full disk shows up here,
/// not silently at exit).
///
/// # Errors
/// [`OutputError`] when stdout cannot be written.
pub fn text(s: &str) -> Result<(), OutputError> {
    bytes(s.as_bytes())
}

/// Writes `b` to standard output as is, and flushes it.
///
/// # Errors
/// As [`text`].
pub fn bytes(b: &[u8]) -> Result<(), OutputError> {
    if let Some(buf) = CAPTURE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
        buf.extend_from_slice(b);
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(b).and_then(|()| out.flush()).map_err(OutputError)
}

/// While `Some`, what would go to standard output (`rebound merge --out`).
static CAPTURE: std::sync::Mutex<Option<Vec<u8>>> = std::sync::Mutex::new(None);

/// Runs `f` with standard output kept in memory; returns its result and what it printed.
pub fn captured<T>(f: impl FnOnce() -> T) -> (T, Vec<u8>) {
    *CAPTURE.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Vec::new());
    let r = f();
    let out = CAPTURE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    (r, out.unwrap_or_default())
}

/// Writes `bytes` to `path` atomically: to a temporary file beside it (named with this
/// process's id), then renamed over `path`; on failure the temporary file is removed and
/// `path` is untouched.
///
/// # Errors
/// The temporary file cannot be written or renamed (naming `path`).
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    let name = path.file_name().with_context(|| format!("{}: not a file name", path.display()))?;
    let mut tmp_name = name.to_os_string();
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `s` and a newline to standard output.
///
/// # Errors
/// As [`text`].
pub fn line(s: &str) -> Result<(), OutputError> {
    text(&format!("{s}\n"))
}

/// Writes `value` as pretty-printed JSON and a newline to standard output, streamed through a
/// 64 KiB buffer rather than built as one string: `storm --json` over 15,000 simulated seconds
/// writes 7.7 MB, and the string, grown and then copied once more for its newline, cost the
/// run 7 % of its CPU in page faults (issue 40, `perf record` on scenario A).
///
/// # Errors
/// [`OutputError`] when stdout cannot be written (what was serialized before stays written);
/// serde_json's error when `value` cannot be serialized.
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut capture = CAPTURE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(buf) = capture.as_mut() {
        serde_json::to_writer_pretty(&mut *buf, value)?;
        buf.push(b'\n');
        return Ok(());
    }
    drop(capture);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value).map_err(|e| {
        if e.is_io() {
            anyhow::Error::new(OutputError(e.into()))
        } else {
            anyhow::Error::new(e)
        }
    })?;
    out.write_all(b"\n").and_then(|()| out.flush()).map_err(OutputError)?;
    Ok(())
}

/// Writes a line for status updates from inside a run, where an error cannot be returned: the
/// first failure is remembered and later lines are dropped; [`status_error`] hands it back.
pub fn status_line(s: &str) {
    if STATUS_FAILED.get().is_none() {
        if let Err(e) = line(s) {
            let _ = STATUS_FAILED.set(e.0.kind());
        }
    }
}

static STATUS_FAILED: std::sync::OnceLock<std::io::ErrorKind> = std::sync::OnceLock::new();

/// The first error of [`status_line`], if any.
pub fn status_error() -> Option<OutputError> {
    STATUS_FAILED.get().map(|&kind| OutputError(kind.into()))
}

/// Writes a line to standard error, ignoring failure: diagnostics must not panic (as
/// `eprintln!` does) when stderr's reader is gone.
pub fn note_line(s: &str) {
    let _ = writeln!(std::io::stderr(), "{s}");
}

/// `eprintln!` that never panics: [`note_line`] of the formatted text.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::output::note_line(&format!($($arg)*))
    };
}
pub(crate) use note;

/// Whether `e` holds an [`OutputError`], and if so whether it is a broken pipe.
pub fn classify(e: &anyhow::Error) -> Option<bool> {
    e.chain().find_map(|c| c.downcast_ref::<OutputError>()).map(OutputError::is_broken_pipe)
}
