//! Labels the store refused when the workbench closed (lock held, disk full):
//! kept as JSON lines in a file beside the store, `<store>.unsaved-labels.jsonl`,
//! and offered for replay at the next start.

use crate::domain::Label;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The recovery file of the store at `db` (beside it, so each workspace has its own).
pub fn path_for(db: &Path) -> PathBuf {
    let mut name = crate::store::location::local_path(db).into_os_string();
    name.push(crate::store::UNSAVED_LABELS_SUFFIX);
    PathBuf::from(name)
}

/// The labels kept in `path` (none when there is no file) and how many lines
/// could not be read.
pub fn read(path: &Path) -> std::io::Result<(Vec<Label>, usize)> {
    let text = match crate::readfile::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e),
    };
    let mut labels = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Label>(line) {
            Ok(l) => labels.push(l),
            Err(_) => bad += 1,
        }
    }
    Ok((labels, bad))
}

/// Adds `labels` to the file (a label given again replaces the older one),
/// durably: a new file is written, synced and renamed over the old one.
/// Returns how many labels the file now holds.
pub fn keep(path: &Path, labels: &[Label]) -> std::io::Result<usize> {
    // A PostgreSQL store's file sits in the data directory, which nothing
    // may have made yet (found on PostgreSQL: SIGTERM lost the unsaved
    // labels with "No such file or directory"). A file store's directory
    // exists, as the store does.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let (old, _) = read(path)?;
    let all = merge(old, labels.iter().cloned());
    write_all(path, &all)?;
    Ok(all.len())
}

/// Replaces the file's content with `all`: a new file written, synced and
/// renamed over the old one (never a half-written file in its place).
fn write_all(path: &Path, all: &[Label]) -> std::io::Result<()> {
    let tmp = {
        let mut n = path.as_os_str().to_owned();
        n.push(".tmp");
        PathBuf::from(n)
    };
    let mut out = String::new();
    for l in all {
        out.push_str(&serde_json::to_string(l).map_err(std::io::Error::other)?);
        out.push('\n');
    }
    let mut f = std::fs::File::create(&tmp)?;
    let written = f.write_all(out.as_bytes()).and_then(|_| f.sync_all());
    drop(f);
    if let Err(e) = written {
        // A half-written temporary file is no use to anyone.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The rename itself is durable only once the directory is synced.
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// Removes the file (replayed or discarded); no file is not an error.
pub fn clear(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Removes `saved` from the file: each entry on the same slot and no newer
/// than the saved label (a label given again meanwhile stays). The file is
/// removed when nothing is left in it.
pub fn forget(path: &Path, saved: &[Label]) -> std::io::Result<()> {
    let (old, bad) = read(path)?;
    let left: Vec<Label> = old
        .into_iter()
        .filter(|l| {
            !saved
                .iter()
                .any(|s| same_slot(s, l) && l.created_at <= s.created_at)
        })
        .collect();
    if left.is_empty() && bad == 0 {
        return clear(path);
    }
    // Unreadable lines are left alone: the start's offer says so.
    if bad > 0 {
        return Ok(());
    }
    write_all(path, &left)
}

/// One label per combination, persona, person and scale: the newest.
pub fn merge(old: Vec<Label>, new: impl IntoIterator<Item = Label>) -> Vec<Label> {
    let mut out: Vec<Label> = Vec::new();
    for l in old.into_iter().chain(new) {
        match out.iter_mut().find(|o| same_slot(o, &l)) {
            Some(o) if o.created_at <= l.created_at => *o = l,
            Some(_) => {}
            None => out.push(l),
        }
    }
    out
}

/// Two labels the store keeps only one of (its upsert key).
pub fn same_slot(a: &Label, b: &Label) -> bool {
    a.key == b.key
        && a.persona_id == b.persona_id
        && a.who == b.who
        && a.value.scale() == b.value.scale()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ComboKey, Value};

    fn label(v: u8, at: &str) -> Label {
        Label {
            key: ComboKey::new("k-001", "urgency", "classification"),
            persona_id: "kenton".into(),
            value: Value::Likert(v),
            note: "n".into(),
            who: "me".into(),
            created_at: at.into(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        }
    }

    #[test]
    fn keep_merges_reads_back_and_clear_removes() {
        let dir = tempfile::tempdir().unwrap();
        let p = path_for(&dir.path().join("j.db"));
        assert_eq!(read(&p).unwrap().0.len(), 0);
        assert_eq!(keep(&p, &[label(2, "2026-01-01")]).unwrap(), 1);
        // The newer answer on the same slot replaces the older one.
        assert_eq!(keep(&p, &[label(4, "2026-01-02")]).unwrap(), 1);
        assert_eq!(keep(&p, &[label(1, "2025-12-31")]).unwrap(), 1);
        let (ls, bad) = read(&p).unwrap();
        assert_eq!((ls[0].value, bad), (Value::Likert(4), 0));
        clear(&p).unwrap();
        assert!(!p.exists());
        clear(&p).unwrap();
    }

    /// Forgetting the labels saved leaves the others and a newer answer
    /// on a saved slot; the file goes once nothing is left.
    #[test]
    fn forget_removes_what_was_saved_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let p = path_for(&dir.path().join("j.db"));
        let mut other = label(3, "2026-01-01");
        other.key.item_id = "k-002".into();
        keep(&p, &[label(2, "2026-01-02"), other.clone()]).unwrap();
        forget(&p, &[label(2, "2026-01-01")]).unwrap();
        assert_eq!(read(&p).unwrap().0.len(), 2, "a newer answer stays");
        forget(&p, &[label(2, "2026-01-02")]).unwrap();
        assert_eq!(read(&p).unwrap().0, [other.clone()]);
        forget(&p, &[other]).unwrap();
        assert!(!p.exists());
        forget(&p, &[label(1, "2026-01-03")]).unwrap();
    }

    /// A PostgreSQL store's recovery file is named after the URL in the
    /// data directory, which may not exist yet: it is made.
    #[test]
    fn keep_makes_the_directory_a_postgresql_store_s_file_goes_in() {
        let dir = tempfile::tempdir().unwrap();
        let url = "postgres://ann@db.example/jury";
        let stand_in = crate::store::location::local_path(Path::new(url));
        let p = dir
            .path()
            .join("not-made-yet/jury")
            .join(path_for(&stand_in).file_name().unwrap());
        assert!(!p.parent().unwrap().exists());
        assert_eq!(keep(&p, &[label(2, "2026-01-01")]).unwrap(), 1);
        assert_eq!(read(&p).unwrap().0.len(), 1);
    }
}
