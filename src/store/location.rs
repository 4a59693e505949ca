//! Where the store lives: a SQLite file (the default) or a PostgreSQL
//! database named by a URL (`--db postgres://user@host/db`, `JURY_DB`,
//! config `db`). A URL's password is never shown: [`Location`]'s Display
//! and [`display_url`] print it without one.

use std::path::{Path, PathBuf};

#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (or `:memory:`, or a `file:` URI).
    File(PathBuf),
    /// A PostgreSQL URL (`postgres://` or `postgresql://`), kept whole for
    /// connecting; shown only through [`display_url`].
    Postgres(String),
}

impl Location {
    /// A `postgres://` or `postgresql://` URL is a PostgreSQL store; any
    /// other text is a file path.
    pub fn parse(s: &str) -> Location {
        if is_postgres_url(s) {
            Location::Postgres(s.to_owned())
        } else {
            Location::File(PathBuf::from(s))
        }
    }

    /// The file, None for a PostgreSQL store.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::File(p) => Some(p),
            Location::Postgres(_) => None,
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

impl From<PathBuf> for Location {
    fn from(p: PathBuf) -> Location {
        match p.to_str() {
            Some(s) if is_postgres_url(s) => Location::Postgres(s.to_owned()),
            _ => Location::File(p),
        }
    }
}

impl From<&Path> for Location {
    fn from(p: &Path) -> Location {
        Location::from(p.to_path_buf())
    }
}

pub fn is_postgres_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// Shown without the password (and without any query parameter whose name
/// says it carries one): `postgres://alice@db.example/jury`.
pub fn display_url(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url) else {
        // Not a URL the parser takes: show nothing after the scheme's
        // authority that could be a password.
        return match url.split_once('@') {
            Some((head, tail)) => match head.rsplit_once(':') {
                Some((user, _)) if user.contains("//") => format!("{user}:***@{tail}"),
                _ => format!("{head}@{tail}"),
            },
            None => url.to_owned(),
        };
    };
    if u.password().is_some() {
        let _ = u.set_password(None);
    }
    let pairs: Vec<(String, String)> = u
        .query_pairs()
        .map(|(k, v)| {
            let v = if crate::provider::secrets::is_secret_param(&k) {
                "***".to_owned()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    if !pairs.is_empty() {
        u.query_pairs_mut().clear().extend_pairs(pairs);
    }
    u.to_string()
}

/// A local path standing for the PostgreSQL store at `url`: files jury
/// keeps beside a store (the labels kept for replay) are named after it.
/// In the data directory (else the temporary one), named by a hash of the
/// URL without its password.
pub fn stand_in(url: &str) -> PathBuf {
    use sha2::Digest;
    let shown = display_url(url);
    let hash = sha2::Sha256::digest(shown.as_bytes());
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let dir = super::default_path()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(std::env::temp_dir);
    dir.join(format!("postgres-{hex}.db"))
}

/// The local file that stands for the store at `db`: the file itself, or
/// for a PostgreSQL URL its [`stand_in`] (what files kept beside the store
/// are named after, so a URL never becomes a file name).
pub fn local_path(db: &Path) -> PathBuf {
    match Location::from(db) {
        Location::Postgres(url) => stand_in(&url),
        Location::File(p) => p,
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::File(p) => write!(f, "{}", p.display()),
            Location::Postgres(u) => f.write_str(&display_url(u)),
        }
    }
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Location({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password() {
        let l = Location::parse(
            "postgres://alice:s3cr3t-pw@db.example:5433/jury?sslmode=require&password=s3cr3t-pw",
        );
        assert!(l.is_postgres());
        let shown = format!("{l} {l:?}");
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(shown.contains("alice@db.example:5433/jury"), "{shown}");
        assert!(shown.contains("sslmode=require"), "{shown}");
        assert_eq!(
            Location::parse("/tmp/jury.db").file(),
            Some(Path::new("/tmp/jury.db"))
        );
    }
}
