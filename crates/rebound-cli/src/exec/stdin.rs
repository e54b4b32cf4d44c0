//! `exec`'s stdin, given to every attempt, not only the first.
//!
//! A retried command must see the same input each time, or a retry silently works on nothing.
//! - A terminal is shared as is (the command reads it live, as without `rebound`).
//! - A regular file (`< FILE`) is given to each attempt from where it started: no copy.
//! - Anything else (a pipe, a socket) is recorded as it is read, up to [`MAX_REPLAY`] bytes,
//!   and each attempt is fed the recording from its start, then what arrives after. The first
//!   attempt starts at once: stdin is read while the command runs, never all before it (a
//!   pipe left open would otherwise hang `exec` before the first attempt). When stdin is
//!   larger than the bound, the attempt running then still gets all of it, and no retry is
//!   made after it ([`Stdin::replayable`] says so).

use std::fs::File;
use std::io::{IsTerminal, Read, Seek, SeekFrom, Write};
use std::os::fd::AsFd;
use std::process::{ChildStdin, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The most stdin bytes kept to replay to retries: 64 MiB.
pub const MAX_REPLAY: usize = 64 << 20;

const CHUNK: usize = 64 << 10;

/// How each attempt gets stdin.
#[derive(Debug)]
pub enum Stdin {
    /// A terminal: inherited.
    Terminal,
    /// A regular file, rewound to `start` for each attempt.
    File {
        /// Our stdin, duplicated.
        file: File,
        /// Where it stood when `exec` started.
        start: u64,
    },
    /// A stream, recorded.
    Stream(Arc<Shared>),
}

/// The recording of a streamed stdin, shared by the reader thread and the attempts' feeders.
#[derive(Debug, Default)]
pub struct Shared {
    rec: Mutex<Recording>,
    more: Condvar,
}

#[derive(Debug, Default)]
struct Recording {
    data: Vec<u8>,
    end: End,
    /// The attempt now running: feeders of earlier attempts stop.
    attempt: u32,
    reader_started: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum End {
    /// More may come.
    #[default]
    Open,
    /// End of input (or a read error, taken as the end).
    Eof,
    /// Past [`MAX_REPLAY`]: the recording stopped; the feeder of the attempt running then
    /// reads the rest from stdin itself.
    Overflow,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Recording> {
        self.rec.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Stdin {
    /// Looks at what stdin is.
    pub fn detect() -> Stdin {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return Stdin::Terminal;
        }
        let file = stdin.as_fd().try_clone_to_owned().map(File::from);
        if let Ok(mut file) = file {
            if file.metadata().is_ok_and(|m| m.is_file()) {
                if let Ok(start) = file.stream_position() {
                    return Stdin::File { file, start };
                }
            }
        }
        Stdin::Stream(Arc::default())
    }

    /// Whether the command should run in rebound's own process group: only with a terminal on
    /// stdin, which a process outside the terminal's foreground group could not read.
    pub fn shares_terminal(&self) -> bool {
        matches!(self, Stdin::Terminal)
    }

    /// Whether a retry would get the whole input: false once a streamed stdin passed
    /// [`MAX_REPLAY`].
    pub fn replayable(&self) -> bool {
        match self {
            Stdin::Stream(s) => s.lock().end != End::Overflow,
            _ => true,
        }
    }

    /// The stdin of the next attempt's child. Call [`Stdin::feed`] once it is spawned.
    pub fn stdio(&self) -> std::io::Result<Stdio> {
        Ok(match self {
            Stdin::Terminal => Stdio::inherit(),
            Stdin::File { file, start } => {
                let mut f = file.try_clone()?;
                f.seek(SeekFrom::Start(*start))?;
                Stdio::from(f)
            }
            Stdin::Stream(_) => Stdio::piped(),
        })
    }

    /// Starts feeding attempt `n`'s pipe (a thread that ends when the input ends, the child
    /// closes its stdin, or a later attempt starts).
    pub fn feed(&self, n: u32, pipe: Option<ChildStdin>) {
        let (Stdin::Stream(shared), Some(pipe)) = (self, pipe) else { return };
        {
            let mut rec = shared.lock();
            rec.attempt = n;
            if !rec.reader_started {
                rec.reader_started = true;
                let s = shared.clone();
                std::thread::spawn(move || record(&s));
            }
        }
        shared.more.notify_all();
        let s = shared.clone();
        std::thread::spawn(move || replay(&s, n, pipe));
    }
}

/// Reads stdin into the recording until its end or [`MAX_REPLAY`].
fn record(shared: &Shared) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0; CHUNK];
    loop {
        let (n, end) = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => (0, End::Eof),
            Ok(n) => (n, End::Open),
        };
        let mut rec = shared.lock();
        rec.data.extend_from_slice(&buf[..n]);
        rec.end = if rec.data.len() > MAX_REPLAY { End::Overflow } else { end };
        let done = rec.end != End::Open;
        drop(rec);
        shared.more.notify_all();
        if done {
            return;
        }
    }
}

/// Writes the recording to attempt `n`'s pipe from its start, waiting for more until the end.
fn replay(shared: &Shared, n: u32, mut pipe: ChildStdin) {
    let mut sent = 0;
    loop {
        let mut rec = shared.lock();
        while rec.attempt == n && rec.end == End::Open && rec.data.len() == sent {
            rec = shared.more.wait(rec).unwrap_or_else(|e| e.into_inner());
        }
        if rec.attempt != n {
            return;
        }
        let chunk = rec.data[sent..].to_vec();
        let end = rec.end;
        drop(rec);
        if pipe.write_all(&chunk).is_err() {
            return;
        }
        sent += chunk.len();
        match end {
            End::Open => {}
            End::Eof if sent == shared.lock().data.len() => return,
            End::Eof => {}
            End::Overflow => {
                if sent == shared.lock().data.len() {
                    // The recorder has stopped; this attempt reads the rest itself.
                    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut pipe);
                    return;
                }
            }
        }
    }
}
