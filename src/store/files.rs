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

/// The labels the store refused when the workbench closed, kept beside it
/// for replay at the next start (`<store>.unsaved-labels.jsonl`).
pub const UNSAVED_LABELS_SUFFIX: &str = ".unsaved-labels.jsonl";

/// Every file jury keeps beside the store, by its suffix to the store's
/// name: SQLite's own, and the labels kept for replay (and their
/// replacement while it is written).
const OWN_SUFFIXES: &[&str] = &[
    "",
    "-wal",
    "-shm",
    "-journal",
    UNSAVED_LABELS_SUFFIX,
    ".unsaved-labels.jsonl.tmp",
];

/// Is `out` the store at `store`, or a file jury keeps beside it (its
/// `-wal`, `-shm`, `-journal`, the labels kept for replay), by any name
/// (relative, through symlinks, or a hard link)?
pub fn is_own_file(store: &Path, out: &Path) -> bool {
    let base = resolve(&store_file(store));
    let own: Vec<PathBuf> = OWN_SUFFIXES.iter().map(|s| sibling(&base, s)).collect();
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
    let prefix = format!(".{name}.jury-tmp-");
    remove_stale(dir, &prefix);
    let tmp = dir.join(format!("{prefix}{}-{nanos}", std::process::id()));
    let _registered = InProgress::register(&tmp);
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

/// Temporary files of writes under way in this process: a signal that ends
/// it removes them first (see [`remove_temporaries`]).
fn in_progress() -> &'static std::sync::Mutex<Vec<PathBuf>> {
    static FILES: std::sync::OnceLock<std::sync::Mutex<Vec<PathBuf>>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| std::sync::Mutex::new(Vec::new()))
}

/// A temporary file registered for as long as the value lives.
struct InProgress(PathBuf);

impl InProgress {
    fn register(p: &Path) -> InProgress {
        if let Ok(mut v) = in_progress().lock() {
            v.push(p.to_path_buf());
        }
        InProgress(p.to_path_buf())
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        if let Ok(mut v) = in_progress().lock() {
            v.retain(|p| p != &self.0);
        }
    }
}

/// Removes the temporary files of writes under way, for a process about to
/// end on a signal (SIGTERM, Ctrl-C): the previous file stays as it was and
/// nothing half-written is left beside it.
pub fn remove_temporaries() {
    let files = match in_progress().lock() {
        Ok(v) => v.clone(),
        Err(p) => p.into_inner().clone(),
    };
    for f in files {
        let _ = std::fs::remove_file(f);
    }
}

/// Removes temporary files of earlier writes to the same target whose
/// process is gone (killed with SIGKILL, which leaves no chance to clean
/// up): `<prefix><pid>-<nanos>` (and its `-wal`/`-shm`) with a pid no
/// process of this host has.
pub(super) fn remove_stale(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|p| !super::pid_alive(p)) && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
