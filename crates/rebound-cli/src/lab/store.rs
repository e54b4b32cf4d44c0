//! Where the lab keeps what its runs produce: on disk, never in memory.
//!
//! A run inside every bound can leave a document of over 100 MB (600 s, 12 policies, 64
//! services), and a lab that kept each finished document as a string grew by that much per run
//! and copied it again for each reader. So each policy's report, the document and the HTML
//! report are written to a file as soon as they exist, the run's thread drops its copy, and a
//! reader gets the file streamed in [`CHUNK`]-byte pieces. What the lab holds in memory for a
//! finished run is its file names; for a reader, at most [`CHUNK`] × 4 bytes in flight.
//!
//! The files live in a directory of their own under the system's temporary directory
//! (`rebound-lab-PID-…`, mode 0700), removed when the lab ends; a directory left by a lab that
//! was killed is removed by the next lab that starts. A file is removed when its run is
//! forgotten and its last reader is done.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The size of the pieces a stored file is read and sent in: 64 KiB.
pub const CHUNK: usize = 64 << 10;

/// The prefix of the lab's directories under the temporary directory.
const PREFIX: &str = "rebound-lab-";

/// The lab's directory of results, removed when dropped.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    next: AtomicU64,
}

impl Store {
    /// A fresh directory under the system's temporary directory (after removing those of labs
    /// that no longer run).
    ///
    /// # Errors
    /// The directory cannot be created.
    pub fn new() -> std::io::Result<Store> {
        let tmp = std::env::temp_dir();
        sweep(&tmp);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let dir = tmp.join(format!("{PREFIX}{}-{}", std::process::id(), nanos.as_nanos()));
        let mut builder = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir)?;
        Ok(Store { dir, next: AtomicU64::new(0) })
    }

    /// Writes `text` to a new file of the store.
    ///
    /// # Errors
    /// The file cannot be written (a full disk, the store removed as the lab ends).
    pub fn put(&self, text: &str) -> std::io::Result<Arc<Stored>> {
        self.put_bytes(text.as_bytes())
    }

    /// Writes `bytes` (an uploaded trace file) to a new file of the store.
    ///
    /// # Errors
    /// As [`Store::put`].
    pub fn put_bytes(&self, bytes: &[u8]) -> std::io::Result<Arc<Stored>> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let path = self.dir.join(format!("{n}.out"));
        let stored = Stored { path, len: bytes.len() as u64 };
        let mut file = std::fs::File::create(&stored.path)?;
        file.write_all(bytes)?;
        Ok(Arc::new(stored))
    }

    /// Removes the directory and everything in it.
    pub fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.remove();
    }
}

/// One stored file: removed when the last holder (the run's snapshot, a reader) drops it.
#[derive(Debug)]
pub struct Stored {
    path: PathBuf,
    len: u64,
}

impl Stored {
    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Where it is (for readers that take a path, such as `rebound-fit`'s).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens it for reading (an open file stays readable after it is removed).
    ///
    /// # Errors
    /// The file is gone (the lab is ending).
    pub async fn open(&self) -> std::io::Result<tokio::fs::File> {
        tokio::fs::File::open(&self.path).await
    }
}

impl Drop for Stored {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes the directories of labs whose process has ended (killed before they could).
fn sweep(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)).and_then(|r| r.split('-').next())
        else {
            continue;
        };
        let ours = entry.metadata().is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == uid());
        if ours && pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// This process's user id.
fn uid() -> u32 {
    std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_goes_with_its_last_holder_and_the_directory_with_the_store() {
        let store = Store::new().unwrap();
        let dir = store.dir.clone();
        let a = store.put("{\"a\": 1}").unwrap();
        let path = a.path.clone();
        assert_eq!((std::fs::read_to_string(&path).unwrap().as_str(), a.len()), ("{\"a\": 1}", 8));
        let reader = a.clone();
        drop(a);
        assert!(path.exists(), "a reader still holds it");
        drop(reader);
        assert!(!path.exists());
        drop(store);
        assert!(!dir.exists());
    }
}
