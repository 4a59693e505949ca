//! Shared by the benchmarks: generated items, the release binary, medians and
//! peak memory of a child process.
#![allow(dead_code)]

use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A private copy of the `jury` binary Cargo built for this bench (release
/// profile under `cargo bench`). Copied once, after checking it is really
/// jury: `target/release/jury` in a target directory shared by several
/// worktrees can be replaced by another build while the bench runs.
fn binary() -> &'static Path {
    static BIN: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        // BENCH_JURY=path: another build of jury (an older commit's, to
        // compare under the same harness).
        let other = std::env::var_os("BENCH_JURY")
            .filter(|p| !p.is_empty())
            .map(std::path::PathBuf::from);
        let src = other
            .as_deref()
            .unwrap_or(Path::new(env!("CARGO_BIN_EXE_jury")));
        let out = Command::new(src)
            .arg("--version")
            .output()
            .expect("run jury --version");
        let v = String::from_utf8_lossy(&out.stdout);
        assert!(
            v.starts_with("jury "),
            "{} is not this jury build (--version said {v:?}); rerun cargo bench",
            src.display()
        );
        let dir = std::env::temp_dir().join(format!("jury-bench-bin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("bin dir");
        let dst = dir.join("jury");
        std::fs::copy(src, &dst).expect("copy jury");
        dst
    })
}

pub fn jury() -> Command {
    let mut c = Command::new(binary());
    c.env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("JURY_MODEL")
        .env("JURY_USER", "bench");
    c
}

/// `jury` with a private store and no config of the developer's.
pub fn jury_in(dir: &Path) -> Command {
    let mut c = jury();
    c.env("JURY_DB", dir.join("jury.db"))
        .env("JURY_CONFIG", dir.join("no-such-config.toml"))
        .env("XDG_CONFIG_HOME", dir.join("xdg-config"));
    c
}

const CLASSES: &[(&str, &[&str])] = &[
    ("urgency", &["urgent", "not"]),
    ("work-pers", &["work", "personal"]),
    ("work-logistics", &["logistics", "not"]),
];

/// `n` items with three classifications each, as JSONL, written to `path`.
pub fn write_items(path: &Path, n: usize) {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).expect("create items"));
    for i in 0..n {
        let classifications: Vec<_> = CLASSES
            .iter()
            .enumerate()
            .map(|(k, (name, avail))| {
                json!({"name": name, "desc": format!("Is this item about {name}?"), "available": avail, "selected": avail[(i + k) % 2]})
            })
            .collect();
        let item = json!({
            "itemId": format!("b-{i:07}"),
            "sent": 1_710_777_356.11 + i as f64,
            "title": format!("Item {i}: the client meeting moves to room 4"),
            "summary": format!("Item {i}. The sprint report review with the client moves to room 4 tomorrow at ten; please confirm today so we can book the room and order lunch for the team."),
            "source": {"type": "email", "originator": format!("sender{}@example.com", i % 97), "channel": "work-mail"},
            "tags": ["inbox:bench"],
            "classifications": classifications,
        });
        writeln!(w, "{item}").expect("write item");
    }
    w.flush().expect("flush");
}

pub fn write_meta(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("meta.json");
    let v = json!([
        {"id": "bench", "name": "Bench", "definition": {"type": "BenchPersona", "does": "I run projects."}},
        {"id": "classification", "name": "Classification", "text": "Is the item classified correctly?"}
    ]);
    std::fs::write(&p, v.to_string()).expect("write meta");
    p
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `cmd` to the end: (wall time, peak RSS in KiB from wait4's rusage, exit code).
pub fn run_measured(cmd: &mut Command) -> (Duration, u64, i32) {
    let m = run_measured_cpu(cmd);
    (m.wall, m.peak_rss_kib, m.code)
}

/// What one child process cost.
pub struct Measured {
    pub wall: Duration,
    pub peak_rss_kib: u64,
    pub code: i32,
    /// User + system CPU time of the child.
    pub cpu: Duration,
}

/// CPU time (user + system) of this process so far, all threads.
pub fn own_cpu() -> Duration {
    // SAFETY: plain FFI call filling a zeroed local.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    cpu_of(&usage)
}

fn cpu_of(u: &libc::rusage) -> Duration {
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// [`run_measured`] with the child's CPU time.
pub fn run_measured_cpu(cmd: &mut Command) -> Measured {
    let start = Instant::now();
    let child = cmd.spawn().expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: plain FFI call with valid pointers to locals; `pid` is our own
    // child, reaped here instead of by std (whose Child is then only dropped).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(rc, pid, "wait4 failed");
    drop(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Measured {
        wall,
        peak_rss_kib: usage.ru_maxrss as u64,
        code,
        cpu: cpu_of(&usage),
    }
}

/// As [`run_measured_cpu`], with the peak RSS read from the child's own
/// `VmHWM` (every 20 ms until it exits) instead of wait4's `ru_maxrss`, which
/// for a child spawned with vfork semantics counts this (parent) process's
/// memory too: a bench holding a big request log would be charged for it.
pub fn run_measured_hwm(cmd: &mut Command) -> Measured {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let start = Instant::now();
    let child = cmd.spawn().expect("spawn");
    let pid = child.id() as libc::pid_t;
    let (done, hwm) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU64::new(0)),
    );
    let watcher = {
        let (done, hwm) = (done.clone(), hwm.clone());
        std::thread::spawn(move || {
            let path = format!("/proc/{pid}/status");
            while !done.load(Ordering::Relaxed) {
                let kib = std::fs::read_to_string(&path).ok().and_then(|s| {
                    s.lines()
                        .find(|l| l.starts_with("VmHWM:"))
                        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                });
                if let Some(k) = kib {
                    hwm.fetch_max(k, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let mut status: libc::c_int = 0;
    // SAFETY: as in run_measured_cpu.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    done.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    assert_eq!(rc, pid, "wait4 failed");
    drop(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Measured {
        wall,
        peak_rss_kib: hwm.load(Ordering::Relaxed),
        code,
        cpu: cpu_of(&usage),
    }
}
