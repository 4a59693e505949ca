//! The store's file: empty, damaged, read-only, a device or a FIFO, or on a
//! full disk — refused or read, never changed behind a person's back.

use super::*;

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
