//! Files written next to (or instead of) the store: an export must never land
//! on the store or its -wal/-shm, and must never leave a half-written file
//! where a complete one stood.

use super::create::sibling;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where `p` really points: symlinks followed (a dangling one too), relative
/// paths made absolute, the file itself need not exist.
fn resolve(p: &Path) -> PathBuf {
    let mut p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    // 40 links: the limit the kernel itself applies.
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(target) => {
                p = match p.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Err(_) => break,
        }
    }
    if let Ok(c) = std::fs::canonicalize(&p) {
        return c;
    }
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or(p.clone()),
        _ => p,
    }
}

/// The store's own path out of a `file:` URI (`file:/x/jury.db?mode=ro`).
fn store_file(store: &Path) -> PathBuf {
    match store.to_str().and_then(|s| s.strip_prefix("file:")) {
        Some(rest) => PathBuf::from(rest.split(['?', '#']).next().unwrap_or(rest)),
        None => store.to_path_buf(),
    }
}

/// Is `out` the store at `store`, or its `-wal`, `-shm` or `-journal`, by any
/// name (relative, through symlinks, or a hard link)?
pub fn is_own_file(store: &Path, out: &Path) -> bool {
    let base = resolve(&store_file(store));
    let own: Vec<PathBuf> = ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|s| sibling(&base, s))
        .collect();
    let target = resolve(out);
    if own.contains(&target) {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(t) = std::fs::metadata(&target) {
            return own.iter().any(|f| {
                std::fs::metadata(f).is_ok_and(|m| m.dev() == t.dev() && m.ino() == t.ino())
            });
        }
    }
    false
}

/// Writes `target` through a temporary file beside it, renamed over it only
/// once `write` has finished and the bytes are on disk: a failed or killed
/// export leaves the previous file as it was. A symlink is followed (the file
/// it points at is replaced, the link kept); a device or pipe is written
/// directly, as it cannot be replaced.
pub fn write_atomically(
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let real = resolve(target);
    let existing = std::fs::metadata(&real).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let mut f = std::io::BufWriter::new(std::fs::OpenOptions::new().write(true).open(&real)?);
        write(&mut f)?;
        return f.flush();
    }
    let dir = real.parent().unwrap_or(Path::new("."));
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(".{name}.jury-tmp-{}-{nanos}", std::process::id()));
    let result = (|| {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        if let Some(m) = &existing {
            // The replacement keeps the old file's permissions.
            let _ = file.set_permissions(m.permissions());
        }
        let mut w = std::io::BufWriter::new(file);
        write(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &real)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
