//! The real binary in a detached tmux session (shared by the tmux tests).
#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

pub fn have_tmux() -> bool {
    Command::new("tmux").arg("-V").output().is_ok()
}

pub fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn capture(s: &str) -> String {
    tmux(&["capture-pane", "-p", "-t", s])
}

pub fn alive(s: &str) -> bool {
    Command::new("tmux")
        .args(["has-session", "-t", s])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

pub async fn wait_for(s: &str, what: &str, f: impl Fn(&str) -> bool) -> String {
    let t0 = Instant::now();
    loop {
        let screen = capture(s);
        if f(&screen) {
            return screen;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            tmux(&["kill-session", "-t", s]);
            panic!("timed out waiting for {what}; screen:\n{screen}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub struct Session {
    pub name: String,
}

impl Session {
    /// `exec jury tui` in the pane: the pane's process is jury itself.
    pub fn start(name: &str, db: &std::path::Path, base_url: &str) -> Session {
        Session::start_cmd(name, &format!("exec {}", jury_cmd(db, base_url)))
    }

    /// jury under the pane's shell, which prints `jury exited N` after it and
    /// stays, so the screen after the exit can be looked at.
    pub fn start_in_shell(name: &str, db: &std::path::Path, base_url: &str) -> Session {
        Session::start_cmd(
            name,
            &format!(
                "{}; echo \"jury exited $?\"; sleep 120",
                jury_cmd(db, base_url)
            ),
        )
    }

    /// As [`Session::start`] with `config` as config.toml and no judge
    /// (the endpoint is never reached).
    pub fn start_with_config(
        name: &str,
        db: &std::path::Path,
        config: &std::path::Path,
    ) -> Session {
        Session::start_cmd(
            name,
            &format!(
                "exec {}",
                jury_cmd_with(db, "http://127.0.0.1:9/v1", config)
            ),
        )
    }

    /// `cmd` in a new detached 160×45 session.
    pub fn start_cmd(name: &str, cmd: &str) -> Session {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", name])
            .output();
        // A tmux server whose last session just closed is still exiting for a
        // moment, and refuses a new session: try again.
        let mut last = String::new();
        for _ in 0..20 {
            let out = Command::new("tmux")
                .args([
                    "new-session",
                    "-d",
                    "-s",
                    name,
                    "-x",
                    "160",
                    "-y",
                    "45",
                    cmd,
                ])
                .output()
                .expect("tmux starts");
            if out.status.success() {
                return Session {
                    name: name.to_string(),
                };
            }
            last = String::from_utf8_lossy(&out.stderr).into_owned();
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("tmux new-session failed: {last}");
    }

    /// Puts away the first start's legend when it shows: Escape on its own,
    /// and its effect awaited before any other key is sent. (An Escape that
    /// reaches jury in one read with the next key is read as Alt+that key,
    /// and two Escapes as one.)
    pub async fn hide_legend(&self) {
        if capture(&self.name).contains("what the marks mean") {
            self.keys(&["Escape"]);
            wait_for(&self.name, "the legend hidden", |x| {
                !x.contains("what the marks mean")
            })
            .await;
        }
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        tmux(&args);
    }

    /// A bracketed paste of `text` (tmux wraps it in the paste markers when
    /// the application turned bracketed paste on, and sends it raw otherwise).
    pub fn paste(&self, text: &str) {
        let buf = format!("{}-buf", self.name);
        let mut child = Command::new("tmux")
            .args(["load-buffer", "-b", &buf, "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("tmux load-buffer");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("buffer written");
        assert!(child.wait().expect("load-buffer ends").success());
        tmux(&["paste-buffer", "-p", "-d", "-b", &buf, "-t", &self.name]);
    }

    pub fn pane_pid(&self) -> i32 {
        tmux(&["display-message", "-p", "-t", &self.name, "#{pane_pid}"])
            .trim()
            .parse()
            .expect("pane pid")
    }

    /// jury's pid when it runs under the pane's shell.
    pub fn jury_pid(&self) -> i32 {
        let out = Command::new("pgrep")
            .args(["-P", &self.pane_pid().to_string(), "jury"])
            .output()
            .expect("pgrep runs");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("one jury under the pane's shell")
    }

    /// Whether the pane shows the alternate screen.
    pub fn alternate_on(&self) -> bool {
        tmux(&["display-message", "-p", "-t", &self.name, "#{alternate_on}"]).trim() == "1"
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .output();
    }
}

fn jury_cmd(db: &std::path::Path, base_url: &str) -> String {
    jury_cmd_with(
        db,
        base_url,
        std::path::Path::new("/nonexistent/config.toml"),
    )
}

/// `jury tui` as `tester` on `db`, judging at `base_url`, with `config` as
/// its config.toml.
fn jury_cmd_with(db: &std::path::Path, base_url: &str, config: &std::path::Path) -> String {
    format!(
        "env -u OPENAI_API_KEY OPENAI_BASE_URL={base_url} JURY_CONFIG={} JURY_USER=tester JURY_SAMPLE_DATA={} {} tui --db {} --model jury-demo-judge",
        config.display(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
        env!("CARGO_BIN_EXE_jury"),
        db.display()
    )
}

/// The verdict pane's focused row (the line with `▶`): its first word.
pub fn focused(screen: &str) -> String {
    screen
        .lines()
        .find_map(|l| l.split('▶').nth(1))
        .map(|r| r.split_whitespace().next().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// The labels `tester` holds on an item.
pub fn labels(db: &std::path::Path, item: &str) -> Vec<jury::domain::Label> {
    let s = jury::store::Store::open(db).unwrap();
    s.labels_for_item(item)
        .unwrap()
        .into_iter()
        .filter(|l| l.who == "tester")
        .collect()
}

/// Waits until the session has ended (the pane's process exited).
pub async fn wait_gone(s: &str) {
    let t0 = Instant::now();
    while alive(s) && t0.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!alive(s), "{s} still running");
}
