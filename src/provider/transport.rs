//! What a transport error means for the request: the endpoint cannot be
//! reached at all, a pooled connection had died under us, or a fault worth a
//! retry. Messages carry the cause, never the URL's credentials or the key.

use super::{Secrets, errtext};

/// A reqwest error as a sentence with its causes, without the URL.
pub fn transport_text(e: &reqwest::Error) -> String {
    let mut parts = vec![strip_url(&e.to_string())];
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        src = s.source();
    }
    parts.join(": ")
}

/// reqwest's Display names the URL ("error sending request for url (…)");
/// the URL is named by the caller once, in its own words.
fn strip_url(s: &str) -> String {
    match s.find(" for url (") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// How a failed `send` (no response at all) should be treated.
#[derive(Debug, PartialEq, Eq)]
pub enum SendFailure {
    /// No connection could be made: refused, DNS, TLS, connect timeout.
    /// The text says which, in a few words.
    Unreachable(String),
    /// The request went into a pooled connection the server had already
    /// closed (llama.cpp closes after each streamed answer while advertising
    /// keep-alive): resend at once on a new connection.
    DeadConnection(String),
    /// Anything else: retry with backoff.
    Other(String),
}

pub fn classify_send_error(e: &reqwest::Error, key: &Secrets) -> SendFailure {
    let text = errtext::clean(&transport_text(e), key);
    let lower = text.to_ascii_lowercase();
    let io_kind = io_error_kind(e);
    if e.is_connect() {
        let cause = if io_kind == Some(std::io::ErrorKind::ConnectionRefused)
            || lower.contains("connection refused")
        {
            "connection refused".to_string()
        } else if lower.contains("dns error")
            || lower.contains("failed to lookup address")
            || lower.contains("name or service not known")
        {
            "the host name could not be resolved".to_string()
        } else if lower.contains("certificate")
            || lower.contains("tls")
            || lower.contains("handshake")
            // rustls wraps its errors as InvalidData ("received corrupt
            // message of type InvalidContentType": a plain-HTTP server
            // behind an https:// URL).
            || io_kind == Some(std::io::ErrorKind::InvalidData)
            || lower.contains("corrupt message")
            || lower.contains("alert")
        {
            format!("the TLS handshake failed ({text})")
        } else if e.is_timeout() || lower.contains("timed out") {
            "the connection attempt timed out".to_string()
        } else {
            text.clone()
        };
        return SendFailure::Unreachable(cause);
    }
    let dead = lower.contains("closed before message completed")
        || lower.contains("connection reset")
        || lower.contains("broken pipe")
        || matches!(
            io_kind,
            Some(std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe)
        );
    if dead {
        SendFailure::DeadConnection(text)
    } else {
        SendFailure::Other(text)
    }
}

fn io_error_kind(e: &reqwest::Error) -> Option<std::io::ErrorKind> {
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        src = s.source();
    }
    None
}

/// Same scheme, host and port.
pub fn same_origin(a: &reqwest::Url, b: &reqwest::Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// Follow a redirect only when it keeps the method and body (307/308) and
/// stays on the same origin; anything else comes back as the 3xx answer,
/// which the client reports naming both URLs. A POST of the judge's prompt
/// (and the key) is never sent to another origin.
pub fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(attempt.status().as_u16(), 307 | 308);
        let same = attempt
            .previous()
            .last()
            .is_some_and(|prev| same_origin(prev, attempt.url()));
        if keeps_body && same && attempt.previous().len() < 5 {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn send_error(url: &str) -> reqwest::Error {
        reqwest::Client::new()
            .get(url)
            .timeout(std::time::Duration::from_secs(60))
            .send()
            .await
            .expect_err("no answer")
    }

    /// A name that cannot resolve (`.invalid` never does) is unreachable,
    /// and says so in its own words.
    #[tokio::test]
    async fn a_name_that_does_not_resolve_is_unreachable() {
        let e = send_error("http://jury-test.invalid/v1/models").await;
        assert_eq!(
            classify_send_error(&e, &Secrets::none()),
            SendFailure::Unreachable("the host name could not be resolved".into()),
            "{}",
            transport_text(&e)
        );
    }

    /// `https://` to a server that answers in plain text: the handshake
    /// fails, and the endpoint is unreachable (not a fault to retry).
    #[tokio::test]
    async fn a_failed_tls_handshake_is_unreachable_and_named() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let mut hello = [0u8; 512];
                let _ = sock.read(&mut hello).await;
                let _ = sock
                    .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                    .await;
            }
        });
        let e = send_error(&format!("https://{addr}/v1/models")).await;
        match classify_send_error(&e, &Secrets::none()) {
            SendFailure::Unreachable(cause) => {
                assert!(cause.starts_with("the TLS handshake failed"), "{cause}")
            }
            other => panic!("{other:?}: {}", transport_text(&e)),
        }
    }
}
