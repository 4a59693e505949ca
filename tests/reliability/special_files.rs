//! Only a regular file is read, prompt files included: a FIFO or a device in
//! a prompt set's folder (an element, the few-shot manifest, a protocol's
//! own file) is refused by name, and nothing waits on it. The real binary;
//! `bounded` fails the test after 60 s where a read would block.
#![cfg(feature = "tui")]

use crate::common;
use crate::safe_data_store::{bounded, mkfifo};

use common::{Workspace, text};
use std::path::Path;

/// A copy of the repository's prompts/ folder.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

#[test]
fn a_fifo_or_device_as_a_prompt_file_is_refused_by_name_and_never_blocks() {
    let ws = Workspace::sample();
    let prompt = [
        "prompt",
        "--mode",
        "2",
        "--persona",
        "kenton",
        "--perspective",
        "classification",
        "--item",
        "k-001",
    ];
    let rubric = [
        "run",
        "--protocol",
        "rubric",
        "--persona",
        "kenton",
        "--items",
        "k-001",
    ];
    // (the file in the set, a FIFO or a link to /dev/zero, the command, what is said)
    let cases: [(&str, bool, &[&str], &str); 4] = [
        (
            "awag/system_common.txt",
            true,
            &prompt,
            "a FIFO (named pipe)",
        ),
        ("awag/user_likert.txt", false, &prompt, "a character device"),
        ("awag/fewshot.json", true, &prompt, "a FIFO (named pipe)"),
        ("rubric/system.txt", true, &rubric, "a FIFO (named pipe)"),
    ];
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts");
    for (i, (file, fifo, args, kind)) in cases.into_iter().enumerate() {
        let set = ws.path(&format!("prompts-{i}"));
        copy_dir(&source, &set);
        let path = set.join(file);
        let _ = std::fs::remove_file(&path);
        if fifo {
            mkfifo(&path);
        } else {
            std::os::unix::fs::symlink("/dev/zero", &path).expect("symlink");
        }
        let out = bounded({
            let mut c = ws.cmd();
            // Nothing listens on port 9: were the prompt read to pass, the
            // run would stop at the endpoint instead.
            c.env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
                .env("OPENAI_API_KEY", "sk-test")
                .args(args)
                .arg("--prompts")
                .arg(&set);
            c
        });
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {err}");
        assert!(
            err.contains(&format!("{file}: ")) && err.contains(kind),
            "{file}: {err}"
        );
    }
}
