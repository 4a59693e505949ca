//! Every credential of a run, as a server could echo it back: the API key
//! and the credentials carried in a base URL (`https://user:KEY@proxy/v1`,
//! `?api-key=KEY`), of every server of the run. What a server sends back is
//! redacted of all of them ([`super::errtext::redact`]), not only of
//! `OPENAI_API_KEY`.

use super::{ProviderConfig, Secret};

/// Query parameters whose value is a credential (Azure's `api-key`, a
/// proxy's `token`, a signed URL's `sig`...), matched on the lower-cased name.
pub const SECRET_PARAMS: [&str; 7] = [
    "key",
    "token",
    "secret",
    "sig",
    "pass",
    "auth",
    "credential",
];

/// Whether a query parameter named `name` carries a credential.
pub fn is_secret_param(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_PARAMS.iter().any(|s| lower.contains(s))
}

/// The credentials of a run, each in every form it can travel in.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<Secret>);

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} redacted)", self.0.len())
    }
}

impl Secrets {
    /// No credential at all.
    pub fn none() -> Secrets {
        Secrets::default()
    }

    /// The key alone (when no URL is at hand).
    pub fn key(key: Option<&Secret>) -> Secrets {
        let mut s = Secrets::none();
        if let Some(k) = key {
            s.add(k.expose());
        }
        s
    }

    /// The run's key and the credentials in its base URL and in every
    /// server's: a request to one server may be answered with text another
    /// sent (a proxy in front of both), and a verdict is stored whatever
    /// server it came from.
    pub fn of(cfg: &ProviderConfig) -> Secrets {
        let mut s = Secrets::key(cfg.api_key.as_ref());
        s.add_url(&cfg.base_url);
        for server in &cfg.servers {
            s.add_url(&server.base_url);
        }
        s
    }

    /// The credentials in `base`: the password (the user name when there is
    /// no password: `https://KEY@host` is a token), and the values of
    /// query parameters whose names say they carry one. Each as the URL
    /// writes it (percent-encoded) and decoded: a server may echo either.
    pub fn add_url(&mut self, base: &str) {
        let Ok(url) = reqwest::Url::parse(base.trim()) else {
            return;
        };
        let user = url.username().to_string();
        match url.password() {
            Some(p) => self.add_encoded(p),
            None if !user.is_empty() => self.add_encoded(&user),
            None => {}
        }
        for pair in url.query().unwrap_or("").split('&') {
            let (name, raw) = pair.split_once('=').unwrap_or((pair, ""));
            if is_secret_param(&percent_decode(name)) {
                self.add(raw);
                self.add(&percent_decode(&raw.replace('+', " ")));
            }
        }
    }

    /// `raw` as written in a URL, and decoded.
    fn add_encoded(&mut self, raw: &str) {
        self.add(raw);
        self.add(&percent_decode(raw));
    }

    /// One form of a credential. Shorter than 4 characters is not redacted
    /// (it would cut ordinary words out of every answer); longest first, so
    /// one that holds another is redacted whole.
    fn add(&mut self, form: &str) {
        if form.chars().count() < 4 || self.0.iter().any(|s| s.expose() == form) {
            return;
        }
        self.0.push(Secret::new(form));
        self.0
            .sort_by_key(|s| std::cmp::Reverse(s.expose().chars().count()));
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(Secret::expose)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Whether `base` carries a credential of its own (a user or password, or a
/// query parameter named like a key): such a server is sent that, and not
/// the run's `OPENAI_API_KEY`.
pub fn url_has_credential(base: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base.trim()) else {
        return false;
    };
    !url.username().is_empty()
        || url.password().is_some()
        || url.query_pairs().any(|(k, _)| is_secret_param(&k))
}

/// `%XX` escapes decoded; anything that does not decode to UTF-8 is kept as written.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(url: &str) -> Vec<String> {
        let mut s = Secrets::none();
        s.add_url(url);
        let mut v: Vec<String> = s.iter().map(str::to_string).collect();
        v.sort();
        v
    }

    #[test]
    fn a_url_gives_its_password_and_key_parameters_raw_and_decoded() {
        assert_eq!(
            forms("https://bob:sk%2FURL%2B1@proxy.example/v1"),
            ["sk%2FURL%2B1", "sk/URL+1"]
        );
        assert_eq!(forms("https://sk-TOKEN-9@proxy.example/v1"), ["sk-TOKEN-9"]);
        assert_eq!(
            forms("https://x.azure.com/openai?api-version=2024-06-01&api-key=k%3Dv+w1&sig=abcd"),
            ["abcd", "k%3Dv+w1", "k=v w1"]
        );
        assert!(forms("http://127.0.0.1:8/v1?api-version=1").is_empty());
        // Too short to redact without cutting words out of answers.
        assert!(forms("https://bob:abc@h/v1").is_empty());
    }

    #[test]
    fn the_run_s_secrets_are_its_key_and_every_server_s_url() {
        let mut cfg = ProviderConfig::new("http://a/v1?token=tok-AAAA", "m");
        cfg.api_key = Some(Secret::new("sk-ENV-1"));
        cfg.servers = vec![
            super::super::ServerSpec::parse("http://u:pw-BBBB@b/v1#2").unwrap(),
            super::super::ServerSpec::parse("http://c/v1").unwrap(),
        ];
        let secrets = Secrets::of(&cfg);
        let mut all: Vec<&str> = secrets.iter().collect();
        all.sort();
        assert_eq!(all, ["pw-BBBB", "sk-ENV-1", "tok-AAAA"]);
    }

    #[test]
    fn which_urls_carry_their_own_credential() {
        assert!(url_has_credential("https://bob:k@h/v1"));
        assert!(url_has_credential("https://k@h/v1"));
        assert!(url_has_credential("https://h/v1?api-key=k"));
        assert!(!url_has_credential("https://h/v1?api-version=1"));
        assert!(!url_has_credential("http://127.0.0.1:9/v1"));
    }

    #[test]
    fn percent_decoding_keeps_what_does_not_decode() {
        assert_eq!(percent_decode("a%2Fb%zz%"), "a/b%zz%");
        assert_eq!(percent_decode("%ff"), "%ff");
    }
}
