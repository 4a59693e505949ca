//! End to end: the real binary in a detached tmux session against a local
//! OpenAI-compatible server. Skips (with a note) when tmux is missing.

use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn capture(s: &str) -> String {
    tmux(&["capture-pane", "-p", "-t", s])
}

fn alive(s: &str) -> bool {
    Command::new("tmux")
        .args(["has-session", "-t", s])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

async fn wait_for(s: &str, what: &str, f: impl Fn(&str) -> bool) -> String {
    let t0 = Instant::now();
    loop {
        let screen = capture(s);
        if f(&screen) {
            return screen;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            tmux(&["kill-session", "-t", s]);
            panic!("timed out waiting for {what}; screen:\n{screen}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

struct Session {
    name: String,
}

impl Session {
    fn start(name: &str, db: &std::path::Path, base_url: &str) -> Session {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", name])
            .output();
        let cmd = format!(
            "exec env -u OPENAI_API_KEY OPENAI_BASE_URL={base_url} JURY_CONFIG=/nonexistent/config.toml JURY_USER=tester JURY_SAMPLE_DATA={} {} tui --db {} --model jury-demo-judge",
            concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
            env!("CARGO_BIN_EXE_jury"),
            db.display()
        );
        let ok = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                "160",
                "-y",
                "45",
                &cmd,
            ])
            .status()
            .expect("tmux starts")
            .success();
        assert!(ok, "tmux new-session failed");
        Session {
            name: name.to_string(),
        }
    }
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        tmux(&args);
    }
    fn pid(&self) -> i32 {
        tmux(&["display-message", "-p", "-t", &self.name, "#{pane_pid}"])
            .trim()
            .parse()
            .expect("pane pid")
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .output();
    }
}

fn labels(db: &std::path::Path, item: &str) -> Vec<jury::domain::Label> {
    let s = jury::store::Store::open(db).unwrap();
    s.labels_for_item(item)
        .unwrap()
        .into_iter()
        .filter(|l| l.who == "tester")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judge_label_quit_reopen_and_kill_9() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(150))
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e2e.db");
    let name = format!("jury-e2e-{}", std::process::id());

    // 1. Open: a new workspace loads the sample data.
    let s = Session::start(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;

    // 2. Judge the current item: verdict values and text appear.
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "a verdict", |x| x.contains("run 1 done")).await;
    assert!(
        screen.contains("Speaking as"),
        "verdict text shown:\n{screen}"
    );
    eprintln!("--- after judging ---\n{screen}");

    // 3. Label the focused row, see it saved, quit.
    s.keys(&["Tab", "Tab", "2"]);
    let screen = wait_for(&s.name, "saved label", |x| x.contains("H 2 ✓saved")).await;
    eprintln!("--- after labelling ---\n{screen}");
    s.keys(&["q"]);
    let t0 = Instant::now();
    while alive(&s.name) && t0.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!alive(&s.name), "q quits");
    drop(s);

    // 4. Reopen: the label is still there.
    let s = Session::start(&name, &db, &server.base_url());
    let screen = wait_for(&s.name, "the label after restart", |x| {
        x.contains("H 2 ✓saved")
    })
    .await;
    eprintln!("--- reopened ---\n{screen}");

    // 5. Label another row, and kill -9 right after the screen says saved.
    s.keys(&["Tab", "Tab", "j", "5"]);
    wait_for(&s.name, "the second label saved", |x| {
        x.contains("H 5 ✓saved")
    })
    .await;
    let pid = s.pid();
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(killed);
    drop(s);
    let ls = labels(&db, "k-001");
    assert!(
        ls.iter().any(|l| l.value == jury::domain::Value::Likert(5)),
        "label survived kill -9: {ls:?}"
    );
    assert!(ls.iter().any(|l| l.value == jury::domain::Value::Likert(2)));

    // 6. And the workbench shows it after the restart.
    let s = Session::start(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["Tab", "Tab", "j"]);
    let screen = wait_for(&s.name, "the killed label", |x| x.contains("H 5 ✓saved")).await;
    eprintln!("--- after kill -9 and restart ---\n{screen}");
    s.keys(&["q"]);
}
