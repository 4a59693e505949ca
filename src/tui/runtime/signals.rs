//! SIGTERM, SIGHUP and SIGINT end the workbench the orderly way: the loop
//! returns, pending label writes are flushed, unsaved ones kept for replay,
//! and the terminal restored (the default action would skip all three).

/// The three signals, caught for the life of the value.
pub struct Signals {
    #[cfg(unix)]
    streams: Vec<(i32, tokio::signal::unix::Signal)>,
}

impl Signals {
    /// Call inside a tokio runtime.
    pub fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = vec![
                (libc::SIGTERM, signal(SignalKind::terminate())?),
                (libc::SIGHUP, signal(SignalKind::hangup())?),
                (libc::SIGINT, signal(SignalKind::interrupt())?),
            ];
            Ok(Signals { streams })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The number of the next signal that arrives.
    pub async fn next(&mut self) -> i32 {
        #[cfg(unix)]
        {
            let waits = self.streams.iter_mut().map(|(n, s)| {
                let n = *n;
                Box::pin(async move {
                    s.recv().await;
                    n
                })
            });
            futures_util::future::select_all(waits).await.0
        }
        #[cfg(not(unix))]
        std::future::pending().await
    }
}
