//! Safe data, the store: no command destroys or silently rewrites what a
//! person stored. Real SQLite files and the real binary.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, text};
use jury::store::{Store, StoreError};
use std::path::{Path, PathBuf};

fn digest(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

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

/// An existing zero-length file is refused (it is not a new
/// workspace); only a path that does not exist becomes one.
#[test]
fn an_empty_store_file_is_refused_and_a_missing_one_is_new() {
    let ws = Workspace::new();
    std::fs::write(&ws.db, b"").expect("truncate");
    for args in [
        vec!["list", "items"],
        vec!["import", "no-such-file.jsonl"],
        vec!["export"],
    ] {
        let out = ws.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("is empty (0 bytes)") && err.contains("delete the empty file"),
            "{err}"
        );
        assert_eq!(std::fs::metadata(&ws.db).expect("db").len(), 0, "untouched");
    }
    let e = Store::open(&ws.db).expect_err("refused");
    assert!(matches!(e, StoreError::EmptyFile { .. }), "{e:?}");

    // A path that does not exist: a new store, complete, no scratch files.
    let fresh = ws.path("fresh/jury.db");
    let s = Store::open(&fresh).expect("new store");
    assert!(s.is_empty().expect("empty"));
    assert_eq!(s.schema_version().expect("v"), jury::store::SCHEMA_VERSION);
    drop(s);
    let names: Vec<String> = std::fs::read_dir(ws.path("fresh"))
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    assert!(std::fs::metadata(&fresh).expect("db").len() > 0);

    // What creating a store left when it was killed (SIGKILL) is removed
    // by the next creation in the same place; a live process's is not.
    let dead = {
        let mut c = std::process::Command::new("true").spawn().expect("true");
        let pid = c.id();
        c.wait().expect("reap");
        pid
    };
    let left = ws.path(&format!("fresh/.again.db.new-{dead}-42"));
    let left_wal = ws.path(&format!("fresh/.again.db.new-{dead}-42-wal"));
    let live = ws.path(&format!("fresh/.again.db.new-{}-43", std::process::id()));
    for f in [&left, &left_wal, &live] {
        std::fs::write(f, b"half a store").expect("scratch");
    }
    drop(Store::open(&ws.path("fresh/again.db")).expect("new store"));
    assert!(
        !left.exists() && !left_wal.exists(),
        "stale scratch files removed"
    );
    assert!(live.exists(), "a live process's scratch file is left alone");

    // A -wal left without its store is not replayed into a new one.
    let orphan = ws.path("orphan.db");
    std::fs::write(ws.path("orphan.db-wal"), b"frames of another database").expect("wal");
    let e = Store::open(&orphan).expect_err("refused");
    assert!(matches!(e, StoreError::OrphanWal { .. }), "{e:?}");
    assert!(!orphan.exists());
}

/// A store with a damaged interior page (page 1 intact) refuses
/// `label` before writing: exit 1, a message saying what to do, the file
/// and its -wal unchanged.
#[test]
fn a_damaged_interior_page_refuses_writes_and_changes_nothing() {
    let ws = Workspace::sample();
    // The `failures` table: `label` never reads it, so only the check finds it.
    let (root, page_size): (i64, i64) = {
        let c = rusqlite::Connection::open(&ws.db).expect("open");
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .expect("checkpoint");
        (
            c.query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'failures'",
                [],
                |r| r.get(0),
            )
            .expect("root"),
            c.query_row("PRAGMA page_size", [], |r| r.get(0))
                .expect("size"),
        )
    };
    assert!(root > 1);
    let mut bytes = digest(&ws.db);
    let at = ((root - 1) * page_size) as usize;
    for (i, b) in bytes[at..at + page_size as usize].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37) ^ 0x5a;
    }
    std::fs::write(&ws.db, &bytes).expect("corrupt");
    let wal = ws.db.with_file_name("jury.db-wal");
    let wal_before = std::fs::read(&wal).ok();

    for args in [
        vec!["label", "k-001", "urgency", "2", "--persona", "kenton"],
        vec!["import", common::sample_data().to_str().expect("utf-8")],
    ] {
        let out = ws.run(&args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            text(&out.stdout)
        );
        let err = text(&out.stderr);
        assert!(
            err.contains("damaged")
                && err.contains("refusing to write")
                && err.contains("restore from a copy"),
            "{err}"
        );
        assert!(!text(&out.stdout).contains("labelled"));
        assert_eq!(digest(&ws.db), bytes, "the damaged file is not rewritten");
        if let Some(w) = &wal_before {
            assert_eq!(&std::fs::read(&wal).expect("-wal kept"), w);
        }
    }
}

/// A store in a directory that cannot be written opens for reading;
/// a write names the path and the cause. Root ignores permissions, so as
/// root the binary is run as `nobody` through setpriv; without setpriv the
/// permission part is skipped (and says so), the read-only open path is
/// still tested through a read-only URI.
#[test]
fn a_read_only_directory_reads_and_refuses_writes_with_path_and_cause() {
    let ws = Workspace::sample();
    let before = ws.ok(&["list", "items", "--json"]);
    // The read-only open path, whoever runs the test.
    let uri = PathBuf::from(format!("file:{}?mode=ro", ws.db.display()));
    let mut ro = Store::open(&uri).expect("opens for reading");
    assert!(!ro.items().expect("read").is_empty());
    assert!(
        ro.upsert_persona(&ro.personas().expect("p")[0].clone())
            .is_err()
    );
    drop(ro);

    let root = unsafe { libc::geteuid() } == 0;
    let setpriv = Path::new("/usr/bin/setpriv").exists();
    if root && !setpriv {
        eprintln!("running as root without setpriv: skipping the permission part of this test");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let shared = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let dir = shared.path().join("ro");
    std::fs::create_dir(&dir).expect("mkdir");
    let db = dir.join("jury.db");
    std::fs::copy(&ws.db, &db).expect("copy");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let bin = shared.path().join("jury");
    std::fs::copy(env!("CARGO_BIN_EXE_jury"), &bin).expect("copy binary");
    let run = |args: &[&str]| {
        let mut c = if root {
            let mut c = std::process::Command::new("/usr/bin/setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&bin);
            c
        } else {
            std::process::Command::new(&bin)
        };
        c.arg("--db")
            .arg(&db)
            .args(args)
            .env("JURY_CONFIG", shared.path().join("none.toml"))
            .env("HOME", shared.path())
            .env("JURY_USER", "tester")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL");
        c.output().expect("jury")
    };
    let read = run(&["list", "items", "--json"]);
    assert!(read.status.success(), "{}", text(&read.stderr));
    assert_eq!(text(&read.stdout), before, "reading works");
    let write = run(&["label", "k-001", "urgency", "2", "--persona", "kenton"]);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    assert_eq!(write.status.code(), Some(1));
    let err = text(&write.stderr);
    assert!(
        err.contains("read-only")
            && err.contains(&dir.display().to_string())
            && err.contains("not writable")
            && err.contains("nothing was saved"),
        "{err}"
    );
}

/// Runs `cmd` to its end, failing the test (and killing it) if it has not
/// ended within a minute: a read of a FIFO would block for ever.
pub(crate) fn bounded(mut cmd: std::process::Command) -> std::process::Output {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn jury");
    for _ in 0..1200 {
        if child.try_wait().expect("try_wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("{cmd:?} blocked (a FIFO read?)");
}

pub(crate) fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().expect("utf-8")).expect("path");
    // SAFETY: a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Anything that is not a regular file is refused by name, never opened as
/// a store, read as config or input, or waited on: a device as the store
/// (`/dev/null` is not "an empty store file"), a FIFO as the store (for
/// every command and `doctor`), as `config.toml`, `prices.toml`,
/// `claims.toml` or an import input.
#[test]
fn a_device_or_fifo_is_refused_by_name_and_never_blocks() {
    let ws = Workspace::sample();
    let out = bounded({
        let mut c = ws.cmd();
        c.args(["--db", "/dev/null", "list", "items"]);
        c
    });
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/dev/null is a character device") && !err.contains("delete the empty file"),
        "{err}"
    );

    let fifo = ws.path("fifo.db");
    mkfifo(&fifo);
    for args in [&["list", "items"][..], &["doctor", "--skip-endpoint"]] {
        let out = bounded({
            let mut c = ws.cmd();
            c.arg("--db").arg(&fifo).args(args);
            c
        });
        let said = text(&out.stderr) + &text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {said}");
        assert!(said.contains("fifo.db is a FIFO"), "{args:?}: {said}");
    }

    let config = ws.path("config-fifo.toml");
    mkfifo(&config);
    let out = bounded({
        let mut c = ws.cmd();
        c.env("JURY_CONFIG", &config).args(["list", "items"]);
        c
    });
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("config-fifo.toml") && err.contains("FIFO"),
        "{err}"
    );

    let input = ws.path("items.jsonl");
    mkfifo(&input);
    let out = bounded({
        let mut c = ws.cmd();
        c.arg("import").arg(&input);
        c
    });
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("items.jsonl") && err.contains("FIFO"), "{err}");

    let dir = ws.path("xdg-config").join("jury");
    std::fs::create_dir_all(&dir).expect("config dir");
    mkfifo(&dir.join("prices.toml"));
    let out = bounded({
        let mut c = ws.cmd();
        c.env("OPENAI_BASE_URL", "http://127.0.0.1:9").args([
            "run",
            "--mode",
            "2",
            "--persona",
            "kenton",
            "--perspective",
            "classification",
        ]);
        c
    });
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("prices.toml") && err.contains("FIFO"), "{err}");

    mkfifo(&dir.join("claims.toml"));
    let (claims, warning) = jury::tui::app::claims::load(Some(&dir));
    assert!(claims.is_empty());
    let warning = warning.expect("a warning naming the file");
    assert!(
        warning.contains("claims.toml") && warning.contains("FIFO"),
        "{warning}"
    );
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

/// A full disk under the store: reading commands still read (the store is
/// opened for reading when there is no room for its -shm), and a write says
/// the disk is full instead of "disk I/O error". It needs a small file
/// system of its own: a tmpfs in a private mount namespace (`unshare -rm`);
/// where none can be made the test says so and checks nothing else.
#[test]
fn a_full_disk_says_so_and_reads_still_work() {
    let private = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .stderr(std::process::Stdio::null())
        .status();
    if !private.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no private mount namespace here (unshare -rm) for a small tmpfs");
        return;
    }
    let ws = Workspace::new();
    let small = ws.path("small");
    std::fs::create_dir(&small).expect("mkdir");
    let script = r#"
        set -e
        mount -t tmpfs -o size=2m tmpfs "$SMALL"
        "$JURY" --db "$SMALL/j.db" import "$SAMPLE" > /dev/null
        dd if=/dev/zero of="$SMALL/fill" bs=4k 2> /dev/null || true
        set +e
        "$JURY" --db "$SMALL/j.db" list items > "$OUT/list.out" 2> "$OUT/list.err"; echo $? > "$OUT/list.rc"
        "$JURY" --db "$SMALL/j.db" report > /dev/null 2> "$OUT/report.err"; echo $? > "$OUT/report.rc"
        "$JURY" --db "$SMALL/j.db" label k-001 urgency 3 --persona kenton > /dev/null 2> "$OUT/label.err"; echo $? > "$OUT/label.rc"
    "#;
    let mut cmd = std::process::Command::new("unshare");
    cmd.args(["-rm", "sh", "-c", script]);
    for (k, v) in ws.cmd().get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd
        .env("SMALL", &small)
        .env("OUT", ws.dir.path())
        .env("JURY", env!("CARGO_BIN_EXE_jury"))
        .env("SAMPLE", common::sample_data())
        .output()
        .expect("unshare");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let read = |name: &str| std::fs::read_to_string(ws.path(name)).expect(name);
    assert_eq!(read("list.rc").trim(), "0", "{}", read("list.err"));
    assert!(read("list.out").contains("k-001"), "{}", read("list.out"));
    assert_eq!(read("report.rc").trim(), "0", "{}", read("report.err"));
    let err = read("label.err");
    assert_eq!(read("label.rc").trim(), "1", "{err}");
    assert!(
        err.contains("disk is full") && !err.contains("disk I/O error\n"),
        "{err}"
    );
}
