//! Several servers for one run: `--base-url URL#8` read into a
//! [`ServerSpec`], and the name a server is recorded under.

use super::url::shown;

/// One server of a run: its base URL and, when given (`URL#8`), how many
/// requests it takes at once (else the run's `--concurrency`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    pub base_url: String,
    pub concurrency: Option<usize>,
}

impl ServerSpec {
    /// `URL` or `URL#N`. A `#` followed by anything but a positive number is
    /// an error (a URL's fragment means nothing to a chat-completions server).
    pub fn parse(s: &str) -> Result<ServerSpec, String> {
        let s = s.trim();
        let Some((url, n)) = s.rsplit_once('#') else {
            return Ok(ServerSpec {
                base_url: s.to_string(),
                concurrency: None,
            });
        };
        match n.trim().parse::<usize>() {
            Ok(n) if n > 0 && !url.trim().is_empty() => Ok(ServerSpec {
                base_url: url.trim().to_string(),
                concurrency: Some(n),
            }),
            _ => Err(format!(
                "the base URL {} ends in #{}: after # comes the number of requests that server takes at once, e.g. #8",
                shown(url),
                crate::sanitize::truncate_chars(&crate::sanitize::sanitize_line(n), 20)
            )),
        }
    }
}

/// The name a server is recorded and exported under: its base URL without
/// user, password, query or fragment (any of which may carry a key), and
/// without a trailing `/`.
pub fn server_label(base_url: &str) -> String {
    let base = base_url.trim();
    match reqwest::Url::parse(base) {
        Ok(mut url) => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.set_query(None);
            url.set_fragment(None);
            url.as_str().trim_end_matches('/').to_string()
        }
        Err(_) => shown(base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_with_and_without_its_concurrency() {
        assert_eq!(
            ServerSpec::parse(" http://a:8000/v1#8 ").unwrap(),
            ServerSpec {
                base_url: "http://a:8000/v1".into(),
                concurrency: Some(8)
            }
        );
        assert_eq!(ServerSpec::parse("http://a/v1").unwrap().concurrency, None);
        for bad in ["http://a/v1#0", "http://a/v1#x", "#4", "http://a/v1#"] {
            assert!(ServerSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_label_carries_no_credentials_or_query() {
        assert_eq!(
            server_label("https://user:sk-CANARY@proxy.example/v1/?api-key=sk-CANARY&x=1"),
            "https://proxy.example/v1"
        );
        assert_eq!(
            server_label("http://127.0.0.1:9/v1"),
            "http://127.0.0.1:9/v1"
        );
    }
}
