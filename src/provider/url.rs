//! Where requests go: the chat-completions URL for a base URL, and whether
//! it is this machine (no proxy for those).

use super::ProviderError;
use crate::sanitize::{sanitize_line, truncate_chars};

/// The chat-completions URL for a base URL: `/chat/completions` appended unless
/// already there; a query string (Azure's `?api-version=`) is kept.
pub fn endpoint_url(base_url: &str) -> Result<reqwest::Url, ProviderError> {
    let base = base_url.trim();
    if base.is_empty() {
        return Err(ProviderError::Config(
            "the base URL is empty; set OPENAI_BASE_URL, e.g. https://api.openai.com/v1".into(),
        ));
    }
    let mut url = reqwest::Url::parse(base).map_err(|e| {
        ProviderError::Config(format!(
            "the base URL \"{}\" is not a URL ({e}); expected e.g. https://api.openai.com/v1",
            truncate_chars(&sanitize_line(base), 100)
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ProviderError::Config(format!(
            "the base URL must start with http:// or https://, not {}://",
            sanitize_line(url.scheme())
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ProviderError::Config("the base URL has no host".into()));
    }
    url.set_fragment(None);
    let path = url.path().trim_end_matches('/').to_string();
    if !path.ends_with("/chat/completions") {
        url.set_path(&format!("{path}/chat/completions"));
    }
    Ok(url)
}

/// Whether `url` names this machine.
pub fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(h) = url.host_str() else {
        return false;
    };
    let h = h.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<std::net::IpAddr>().is_ok_and(|a| a.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn endpoint_building() {
        let e = |s: &str| endpoint_url(s).map(|u| u.to_string());
        assert_eq!(
            e("https://api.openai.com/v1").unwrap(),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            e("http://127.0.0.1:11434/v1/").unwrap(),
            "http://127.0.0.1:11434/v1/chat/completions"
        );
        assert_eq!(
            e("https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01").unwrap(),
            "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01"
        );
        assert_eq!(
            e("https://x.azure.com/openai/deployments/d?api-version=1").unwrap(),
            "https://x.azure.com/openai/deployments/d/chat/completions?api-version=1"
        );
        assert!(matches!(endpoint_url(""), Err(ProviderError::Config(_))));
        assert!(matches!(
            endpoint_url("localhost:8080"),
            Err(ProviderError::Config(_))
        ));
        assert!(matches!(
            endpoint_url("ftp://h/v1"),
            Err(ProviderError::Config(_))
        ));
        assert!(matches!(
            endpoint_url("not a url"),
            Err(ProviderError::Config(_))
        ));
    }

    #[test]
    fn loopback_hosts() {
        let l = |s: &str| is_loopback(&reqwest::Url::parse(s).unwrap());
        assert!(l("http://localhost:1/v1") && l("http://127.0.0.1/") && l("http://[::1]:8/"));
        assert!(!l("https://api.openai.com/v1") && !l("http://10.0.0.1/"));
    }
}
