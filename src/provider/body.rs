//! Reading a response body chunk by chunk under three limits: cancellation,
//! the whole request's deadline and an idle timeout between chunks.
//!
//! A streamed answer arrives as a few hundred HTTP chunks. Arming two fresh
//! timers per chunk (as `sleep_until` + `timeout` around every read would)
//! costs two timer-wheel insertions and removals each time; here both timers
//! live for the whole body. The idle timer is reset lazily: each chunk only
//! notes when it came, and when the timer fires early it is pushed to that
//! moment plus the idle timeout. A chunk already decoded is taken without
//! touching the timers at all.

use bytes::Bytes;
use futures_util::FutureExt;
use std::pin::Pin;
use std::time::Duration;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;

/// Why reading stopped before the body ended.
#[derive(Debug)]
pub enum ReadStop {
    Cancelled,
    /// The whole request's deadline passed.
    Deadline,
    /// Nothing that counts for the idle timeout.
    Idle,
    /// The transport failed.
    Broken(reqwest::Error),
}

pub struct ChunkReader<'a> {
    resp: &'a mut reqwest::Response,
    cancel: &'a CancellationToken,
    deadline: Pin<Box<Sleep>>,
    idle: Pin<Box<Sleep>>,
    idle_after: Duration,
    last_chunk: Instant,
}

impl<'a> ChunkReader<'a> {
    pub fn new(
        resp: &'a mut reqwest::Response,
        cancel: &'a CancellationToken,
        deadline: Instant,
        idle_after: Duration,
    ) -> Self {
        let now = Instant::now();
        ChunkReader {
            resp,
            cancel,
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            idle: Box::pin(tokio::time::sleep_until(now + idle_after)),
            idle_after,
            last_chunk: now,
        }
    }

    /// Something that counts arrived: the idle clock starts again. Bytes
    /// alone do not count (SSE comments such as `: keepalive`, whitespace):
    /// the reader says what is progress.
    pub fn progress(&mut self) {
        self.last_chunk = Instant::now();
    }

    /// The next chunk, `None` at the end of the body.
    pub async fn next(&mut self) -> Result<Option<Bytes>, ReadStop> {
        if self.cancel.is_cancelled() {
            return Err(ReadStop::Cancelled);
        }
        // Fast path: hyper has the next chunk ready (several arrived in one
        // read). The deadline is still honoured: it is checked against the
        // clock every time the slow path runs, which is at least once per read
        // from the socket.
        if let Some(r) = self.resp.chunk().now_or_never() {
            return self.took(r);
        }
        loop {
            tokio::select! {
                biased;
                _ = self.cancel.cancelled() => return Err(ReadStop::Cancelled),
                _ = self.deadline.as_mut() => return Err(ReadStop::Deadline),
                _ = self.idle.as_mut() => {
                    let due = self.last_chunk + self.idle_after;
                    if Instant::now() >= due {
                        return Err(ReadStop::Idle);
                    }
                    // A chunk came since the timer was armed: wait the rest.
                    self.idle.as_mut().reset(due);
                }
                r = self.resp.chunk() => return self.took(r),
            }
        }
    }

    /// After the answer's last event (`[DONE]`): the rest of the body (its
    /// terminating chunk, as a rule) read and dropped, to its end, or until
    /// `at_most` bytes or `within` time went by. A body read to its end
    /// leaves its keep-alive connection idle, back in the pool for the next
    /// request; one dropped before its end is closed by hyper, and the next
    /// request opens another connection (at hundreds in flight, dozens of
    /// them a run; a server that caps its connections refuses those past
    /// the cap). True when the body ended (or broke) within the limits.
    pub async fn drain(&mut self, within: Duration, at_most: usize) -> bool {
        let until = Instant::now() + within;
        let mut read = 0usize;
        loop {
            let r = match self.resp.chunk().now_or_never() {
                Some(r) => r,
                // The body before the clock: on a busy runtime the task may
                // be polled only after the wait ran out, with the body's
                // end already there.
                None => tokio::select! {
                    biased;
                    _ = self.cancel.cancelled() => return false,
                    r = self.resp.chunk() => r,
                    _ = tokio::time::sleep_until(until) => return false,
                },
            };
            match r {
                Ok(Some(b)) => {
                    read += b.len();
                    if read > at_most {
                        return false;
                    }
                }
                Ok(None) | Err(_) => return true,
            }
        }
    }

    fn took(&mut self, r: reqwest::Result<Option<Bytes>>) -> Result<Option<Bytes>, ReadStop> {
        r.map_err(ReadStop::Broken)
    }
}
