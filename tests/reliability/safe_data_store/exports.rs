//! Exports never write over the store or jury's own files, and a failed or
//! killed export leaves the previous file as it was.

use super::*;

/// `export --out` onto the store (any spelling) is refused and the
/// store is untouched; a normal export replaces its target whole.
#[test]
fn export_refuses_the_store_and_its_wal_and_shm_by_any_name() {
    let ws = Workspace::sample();
    let before = ws.ok(&["export", "--format", "jsonl"]);
    let dir = ws.dir.path();
    std::os::unix::fs::symlink(&ws.db, dir.join("link.db")).expect("symlink");
    std::os::unix::fs::symlink(ws.db.with_file_name("jury.db-wal"), dir.join("wal-link"))
        .expect("symlink");
    std::fs::create_dir(dir.join("sub")).expect("mkdir");
    let size = std::fs::metadata(&ws.db).expect("db").len();
    for (cwd, out) in [
        (dir.to_path_buf(), ws.db.display().to_string()),
        (dir.to_path_buf(), "jury.db".to_string()),
        (dir.to_path_buf(), "./jury.db".to_string()),
        (dir.join("sub"), "../jury.db".to_string()),
        (dir.to_path_buf(), "jury.db-wal".to_string()),
        (dir.to_path_buf(), "jury.db-shm".to_string()),
        (dir.to_path_buf(), "link.db".to_string()),
        (dir.to_path_buf(), "wal-link".to_string()),
    ] {
        for format in ["jsonl", "csv", "awag"] {
            let out_run = ws
                .cmd()
                .current_dir(&cwd)
                .args(["export", "--format", format, "--out", &out])
                .output()
                .expect("jury");
            assert_eq!(out_run.status.code(), Some(1), "{out} {format}");
            let err = text(&out_run.stderr);
            assert!(
                err.contains("refusing to export") && err.contains("store"),
                "{err}"
            );
            assert_eq!(std::fs::metadata(&ws.db).expect("db").len(), size, "{out}");
        }
    }
    // The store still opens as the same workspace, nothing lost.
    assert_eq!(ws.ok(&["export", "--format", "jsonl"]), before);

    // A real export replaces the previous file whole, leaving no scratch file.
    let target = ws.path("out.jsonl");
    std::fs::write(&target, "old content\n").expect("write");
    ws.ok(&["export", "--out", target.to_str().expect("utf-8")]);
    assert_eq!(std::fs::read_to_string(&target).expect("out"), before);
    let names: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("jury-tmp")), "{names:?}");
}

/// An export that fails part-way leaves the previous file as it was
/// (the target's directory is writable, the write itself fails).
#[test]
fn a_failed_export_leaves_the_previous_file_as_it_was() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("export.jsonl");
    std::fs::write(&target, "the previous export\n").expect("write");
    let r = jury::store::write_atomically(&target, |w| {
        w.write_all(b"half of a new export")?;
        Err(std::io::Error::other("the disk is full"))
    });
    assert!(r.is_err());
    assert_eq!(
        std::fs::read_to_string(&target).expect("target"),
        "the previous export\n"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").collect();
    assert_eq!(left.len(), 1, "no scratch file left behind");
}

/// Killed: SIGKILL at several moments while an export of many
/// labels runs: the target is the previous file or a complete new export,
/// never a torn one.
#[test]
fn a_killed_export_leaves_the_previous_file_as_it_was() {
    let ws = common::generated_workspace(2000, 3);
    let mut labels = String::new();
    for i in 0..2000 {
        for (c, _) in common::CLASSES.iter() {
            labels.push_str(
                &serde_json::json!({"itemId": format!("g-{i:06}"), "classificationId": c,
                    "perspectiveId": "classification", "personaId": "tester", "value": 1 + i % 5,
                    "createdAt": "2026-01-02T03:04:05Z"})
                .to_string(),
            );
            labels.push('\n');
        }
    }
    let lf = ws.write("labels.jsonl", labels);
    ws.ok(&["import", lf.to_str().expect("utf-8")]);
    let target = ws.path("export.jsonl");
    std::fs::write(&target, "the previous export\n").expect("write");
    for delay_ms in [0u64, 10, 40, 120] {
        let mut child = ws
            .cmd()
            .args(["export", "--format", "jsonl", "--out"])
            .arg(&target)
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        // SAFETY: SIGKILL to our own child, not yet reaped.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGKILL);
        }
        let _ = child.wait();
        let now = std::fs::read_to_string(&target).expect("target");
        let complete = now.lines().count() == 6000
            && now
                .lines()
                .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok());
        assert!(
            now == "the previous export\n" || complete,
            "torn export after {delay_ms} ms: {} bytes",
            now.len()
        );
        std::fs::write(&target, "the previous export\n").expect("write");
    }
}

/// The temporary files beside `target` (`.NAME.jury-tmp-PID-NANOS`).
fn temporaries(target: &Path) -> Vec<String> {
    let name = target.file_name().and_then(|n| n.to_str()).expect("name");
    let prefix = format!(".{name}.jury-tmp-");
    std::fs::read_dir(target.parent().expect("dir"))
        .expect("read dir")
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .filter(|n| n.starts_with(&prefix))
        .collect()
}

/// Every file jury keeps beside the store is refused as `--out` (the labels
/// kept for replay, as the store and its -wal); an export ended by SIGTERM
/// removes its temporary file, and a stale one left by SIGKILL is removed
/// by the next export to the same place (one of a live process is not).
#[test]
fn exports_never_replace_jurys_files_nor_leave_temporaries() {
    let ws = Workspace::sample();
    let kept = ws.path("jury.db.unsaved-labels.jsonl");
    std::fs::write(&kept, "{\"kept\":true}\n").expect("write");
    for cmd in ["export", "report"] {
        let out = ws.run(&[cmd, "--out", kept.to_str().expect("utf-8")]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {err}");
        assert!(err.contains("refusing"), "{cmd}: {err}");
        assert_eq!(digest(&kept), b"{\"kept\":true}\n", "{cmd}");
    }

    let big = common::generated_workspace(10_000, 3);
    let mut labels = String::new();
    for i in 0..10_000 {
        for (c, _) in common::CLASSES.iter() {
            labels.push_str(
                &serde_json::json!({"itemId": format!("g-{i:06}"), "classificationId": c,
                    "perspectiveId": "classification", "personaId": "tester", "value": 1 + i % 5,
                    "createdAt": "2026-01-02T03:04:05Z"})
                .to_string(),
            );
            labels.push('\n');
        }
    }
    let lf = big.write("labels.jsonl", labels);
    big.ok(&["import", lf.to_str().expect("utf-8")]);
    let target = big.path("export.jsonl");
    std::fs::write(&target, "the previous export\n").expect("write");
    // SIGTERM while the temporary file is being written (seen beside the
    // target); an export that ends before it is seen is tried again.
    let mut caught = 0;
    for _ in 0..5 {
        let mut child = big
            .cmd()
            .args(["export", "--format", "jsonl", "--out"])
            .arg(&target)
            .spawn()
            .expect("spawn");
        let mut seen = false;
        for _ in 0..5000 {
            if child.try_wait().expect("try_wait").is_some() {
                break;
            }
            if !temporaries(&target).is_empty() {
                seen = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if seen {
            // SAFETY: SIGTERM to our own child, not yet reaped.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
        }
        let status = child.wait().expect("wait");
        assert_eq!(temporaries(&target), Vec::<String>::new(), "{status:?}");
        if seen && !status.success() {
            caught += 1;
            assert_eq!(digest(&target), b"the previous export\n");
        }
        std::fs::write(&target, "the previous export\n").expect("write");
    }
    assert!(caught > 0, "no export was caught while writing");

    // What a SIGKILL leaves: a temporary of a process that is gone.
    let dead = {
        let mut c = std::process::Command::new("true").spawn().expect("true");
        let pid = c.id();
        c.wait().expect("reap");
        pid
    };
    let stale = big.path(&format!(".export.jsonl.jury-tmp-{dead}-12345"));
    std::fs::write(&stale, "half an export").expect("write");
    let live = big.path(&format!(
        ".export.jsonl.jury-tmp-{}-6789",
        std::process::id()
    ));
    std::fs::write(&live, "another export under way").expect("write");
    big.ok(&[
        "export",
        "--format",
        "jsonl",
        "--out",
        target.to_str().expect("utf-8"),
    ]);
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert!(
        live.exists(),
        "a live process's temporary file is left alone"
    );
}
