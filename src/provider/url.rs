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

const MASK: &str = "***";

/// The base URL as it may be shown, logged or stored: a user name and a
/// password in it become `***`, and so do the values of query parameters
/// whose names say they carry a credential. Keys are sometimes put in the
/// URL (`https://user:KEY@proxy/v1`, `?api-key=`), and the URL is printed by
/// `jury run`, named in errors and kept in the store's `endpoint_paths`.
pub fn shown(base: &str) -> String {
    let base = base.trim();
    let Ok(mut url) = reqwest::Url::parse(base) else {
        return truncate_chars(&sanitize_line(&mask_authority(base)), 200);
    };
    if !url.username().is_empty() {
        let _ = url.set_username(MASK);
    }
    if url.password().is_some() {
        let _ = url.set_password(Some(MASK));
    }
    if url.query().is_some() {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| {
                let secret = super::secrets::is_secret_param(&k);
                (
                    k.into_owned(),
                    if secret { MASK.into() } else { v.into_owned() },
                )
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    truncate_chars(&sanitize_line(url.as_str()), 200)
}

/// `scheme://user:pass@host/...` with the part before `@` masked, for text
/// that does not parse as a URL.
fn mask_authority(s: &str) -> String {
    let Some(start) = s.find("://").map(|i| i + 3) else {
        return s.to_string();
    };
    let end = s[start..]
        .find(['/', '?', '#'])
        .map_or(s.len(), |i| start + i);
    match s[start..end].rfind('@') {
        Some(at) => format!("{}{MASK}{}", &s[..start], &s[start + at..]),
        None => s.to_string(),
    }
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
    fn shown_masks_credentials_in_the_url() {
        assert_eq!(
            shown("https://bob:sk-live-123@proxy.example/v1"),
            "https://***:***@proxy.example/v1"
        );
        assert_eq!(
            shown("https://sk-live-123@proxy.example/v1"),
            "https://***@proxy.example/v1"
        );
        assert_eq!(
            shown("https://x.openai.azure.com/openai?api-version=2024-06-01&api-key=sk-live-123"),
            "https://x.openai.azure.com/openai?api-version=2024-06-01&api-key=***"
        );
        assert_eq!(
            shown("http://127.0.0.1:8090/v1"),
            "http://127.0.0.1:8090/v1"
        );
        // Not a URL at all: the authority is still masked.
        assert_eq!(shown("ht tp://bob:sk-1@h /v1"), "ht tp://***@h /v1");
    }

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
