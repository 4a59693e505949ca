//! `jury demo-judge`: a deterministic offline judge serving the OpenAI wire
//! format on 127.0.0.1, so jury can be tried (README quick start) and
//! demonstrated with no network and no key. A local judge beside the
//! [`crate::provider`]: the keyword rules in [`judge`] (AwAg; the other
//! protocols in `protocols`), the wire format in
//! [`wire`], and the small HTTP core in [`http`] (which the test server, a
//! test-only feature, builds its fault injection on).

pub mod http;
pub mod judge;
pub mod logprobs;
mod protocols;
pub mod wire;

pub use judge::{Answer, MODEL, answer};

use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

/// A running demo judge; stops on drop.
#[derive(Debug)]
pub struct DemoJudge {
    addr: SocketAddr,
    stop: CancellationToken,
}

impl DemoJudge {
    /// Serve on 127.0.0.1:`port` (0: any free one), answering each request
    /// `latency` after it arrived (the model list at once), as a remote model
    /// would take a while. Must be called inside a tokio runtime.
    pub async fn start(port: u16, latency: Duration) -> std::io::Result<DemoJudge> {
        let stop = CancellationToken::new();
        let addr = http::listen(port, stop.clone(), move |sock| serve(sock, latency)).await?;
        Ok(DemoJudge { addr, stop })
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

impl Drop for DemoJudge {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Longest wait for a client to take an answer.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

async fn serve(mut sock: TcpStream, latency: Duration) {
    let mut buf = Vec::with_capacity(8192);
    while let Some((req, close)) = http::read_request(&mut sock, &mut buf).await {
        let arrived = tokio::time::Instant::now();
        let answer = answer(&req);
        if answer != Answer::Models {
            tokio::time::sleep_until(arrived + latency).await;
        }
        let bytes = wire::response(&answer, &req);
        // A client that never reads its answer does not hold the connection.
        let written = tokio::time::timeout(WRITE_TIMEOUT, async {
            sock.write_all(&bytes).await?;
            sock.flush().await
        })
        .await;
        if !matches!(written, Ok(Ok(()))) || close {
            let _ = sock.shutdown().await;
            return;
        }
    }
}
