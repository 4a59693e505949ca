//! A theme name is a name, not a path, and errors in the theme, keymap and
//! config files name the file, line and column but never echo the line (which
//! may hold an API key). The real binary, real files.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::process::Command;

const CANARY: &str = "sk-CANARY-5ecret-0ddba11";

/// A config directory whose config.toml holds the fake key (mode 0600).
fn config_dir(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, format!("api_key = \"{CANARY}\"\n{extra}")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    dir
}

fn jury(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_jury"))
        .args(args)
        .env("JURY_CONFIG", dir.join("config.toml"))
        .env("JURY_DB", dir.join("j.db"))
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_bad_config_file_is_located_without_echoing_the_key() {
    for (bad, line, col) in [
        (format!("temperature = \"{CANARY}\"\n"), 2, 15),
        (format!("model = \"m\"\n  {CANARY} = 1\n"), 3, 3),
        // An unterminated string is reported where the line ends.
        (format!("who = \"{CANARY}\n"), 2, 32),
    ] {
        let dir = config_dir(&bad);
        for args in [&["doctor"][..], &["tui"][..]] {
            let (_, text) = jury(dir.path(), args);
            assert!(
                !text.contains("CANARY"),
                "{args:?} echoed the file:\n{text}"
            );
            let at = format!("config.toml: line {line}, column {col}");
            assert!(text.contains(&at), "{args:?} lacks {at}:\n{text}");
        }
    }
}

/// The screen once the workbench shows `expect` (a frame may be caught half drawn).
async fn screen_with(name: &str, dir: &std::path::Path, args: &str, expect: &str) -> String {
    let cmd = format!(
        "exec env -u OPENAI_API_KEY JURY_CONFIG={} JURY_USER=tester {} tui --db {} {args}",
        dir.join("config.toml").display(),
        env!("CARGO_BIN_EXE_jury"),
        dir.join("j.db").display()
    );
    // The session ends when `s` is dropped.
    let s = Session::start_cmd(name, &cmd);
    wait_for(&s.name, expect, |x| {
        x.contains("items 94/94") && x.contains(expect)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn theme_and_keymap_problems_show_where_but_not_what() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let pid = std::process::id();
    // 1. --theme ../config would read config.toml: refused as a name.
    let dir = config_dir("");
    let screen = screen_with(
        &format!("jury-canary-a-{pid}"),
        dir.path(),
        "--theme ../config",
        "is not a theme name",
    )
    .await;
    assert!(!screen.contains("CANARY"), "{screen}");
    assert!(screen.contains("is not a theme name"), "{screen}");

    // 2. The same through config.toml's theme = "../config".
    let dir = config_dir("theme = \"../config\"\n");
    let screen = screen_with(
        &format!("jury-canary-b-{pid}"),
        dir.path(),
        "",
        "is not a theme name",
    )
    .await;
    assert!(
        !screen.contains("CANARY") && screen.contains("is not a theme name"),
        "{screen}"
    );

    // 3. A theme file with the key as a colour: file, line and column.
    let dir = config_dir("");
    std::fs::create_dir(dir.path().join("themes")).unwrap();
    std::fs::write(
        dir.path().join("themes/mine.toml"),
        format!("[roles]\njudge = {{ fg = \"{CANARY}\" }}\n"),
    )
    .unwrap();
    let screen = screen_with(
        &format!("jury-canary-c-{pid}"),
        dir.path(),
        "--theme mine",
        "mine.toml: line 2, column 16: unknown colour",
    )
    .await;
    assert!(!screen.contains("CANARY"), "{screen}");
    assert!(
        screen.contains("mine.toml: line 2, column 16: unknown colour"),
        "{screen}"
    );

    // 4. A keymap binding a key to the key: file, line and column.
    let dir = config_dir("");
    std::fs::write(
        dir.path().join("keymap.toml"),
        format!("[keys]\nx = \"{CANARY}\"\n"),
    )
    .unwrap();
    let screen = screen_with(
        &format!("jury-canary-d-{pid}"),
        dir.path(),
        "",
        "keymap.toml: line 2, column 5: unknown action",
    )
    .await;
    assert!(!screen.contains("CANARY"), "{screen}");
    assert!(
        screen.contains("keymap.toml: line 2, column 5: unknown action"),
        "{screen}"
    );
}
