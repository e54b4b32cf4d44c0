//! One run's traces file from its processes' own files: their lines one after the other, each
//! line an `ExportTraceServiceRequest` (the file exporter's format, so the result is one too).
//! A last line without its newline (a process killed while writing) is left out and counted.

use crate::LiveError;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// What [`merge`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Merged {
    /// Lines (`ExportTraceServiceRequest`s) written.
    pub lines: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Incomplete last lines left out.
    pub cut_lines: u64,
}

/// Writes the lines of `parts` (in order; a missing part is skipped: its process recorded
/// nothing) to `out`, then removes the parts.
///
/// # Errors
/// [`LiveError::Io`] naming the file that cannot be read or written.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<Merged, LiveError> {
    let what = |p: &Path| format!("writing the traces file {}", p.display());
    let file = std::fs::File::create(out).map_err(LiveError::io(what(out)))?;
    let mut w = BufWriter::new(file);
    let mut merged = Merged::default();
    let mut line = Vec::new();
    for part in parts {
        let f = match std::fs::File::open(part) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(LiveError::io(format!("reading {}", part.display()))(e)),
        };
        let mut r = BufReader::new(f);
        loop {
            line.clear();
            let n = r
                .read_until(b'\n', &mut line)
                .map_err(LiveError::io(format!("reading {}", part.display())))?;
            if n == 0 {
                break;
            }
            if line.last() != Some(&b'\n') {
                merged.cut_lines += 1;
                break;
            }
            w.write_all(&line).map_err(LiveError::io(what(out)))?;
            merged.lines += 1;
            merged.bytes += n as u64;
        }
        let _ = std::fs::remove_file(part);
    }
    w.flush().map_err(LiveError::io(what(out)))?;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_joined_and_a_cut_last_line_is_left_out() {
        let dir = std::env::temp_dir().join(format!("rebound-traces-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, missing) = (dir.join("a"), dir.join("b"), dir.join("missing"));
        std::fs::write(&a, "{\"resourceSpans\":[]}\n{\"x\":1}\n").unwrap();
        std::fs::write(&b, "{\"y\":2}\n{\"cut").unwrap();
        let out = dir.join("out.jsonl");
        let m = merge(&[a.clone(), missing, b.clone()], &out).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"resourceSpans\":[]}\n{\"x\":1}\n{\"y\":2}\n");
        assert_eq!((m.lines, m.cut_lines), (3, 1));
        assert!(!a.exists() && !b.exists(), "parts removed");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
