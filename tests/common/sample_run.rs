//! The setup of the tests that judge the sample data with `jury run`: a
//! private workspace holding the sample, a fake server, and the run's flags
//! for persona `kenton` on the `classification` perspective.

use super::{ServerRt, Workspace};
use jury::testserver::{RecordedRequest, Reply};
use std::process::Output;

/// `jury run` as persona `kenton` on the `classification` perspective.
pub const RUN_AS_KENTON: [&str; 5] = [
    "run",
    "--persona",
    "kenton",
    "--perspective",
    "classification",
];

impl Workspace {
    /// A workspace holding the sample data.
    pub fn sample() -> Workspace {
        let ws = Workspace::new();
        ws.import_sample();
        ws
    }

    /// The sample data judged by the demo judge once in each of `modes`,
    /// with `flags` (`jury run` as kenton on classification), every run
    /// checked to succeed.
    pub fn sample_judged(modes: &[&str], flags: &[&str]) -> Workspace {
        let run = SampleRun::demo();
        for mode in modes {
            let mut args = vec!["--mode", mode];
            args.extend_from_slice(flags);
            super::assert_success(&run.judge(None, &args), &args);
        }
        run.ws
    }

    /// `jury run` as persona `kenton` on the `classification` perspective
    /// against `base_url`, then `flags`; `key` is the API key it is given
    /// (none when `None`).
    pub fn judge(&self, base_url: &str, key: Option<&str>, flags: &[&str]) -> Output {
        let mut c = self.cmd();
        c.env("OPENAI_BASE_URL", base_url);
        if let Some(key) = key {
            c.env("OPENAI_API_KEY", key);
        }
        c.args(RUN_AS_KENTON)
            .args(flags)
            .output()
            .expect("spawn jury")
    }
}

/// The sample data in its own workspace and a fake server to judge it.
pub struct SampleRun {
    pub ws: Workspace,
    pub srv: ServerRt,
}

impl SampleRun {
    /// The sample, judged by a server answering with `responder`.
    pub fn start<F>(responder: F) -> SampleRun
    where
        F: Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    {
        SampleRun {
            ws: Workspace::sample(),
            srv: ServerRt::start(responder),
        }
    }

    /// The sample, judged by the demo judge.
    pub fn demo() -> SampleRun {
        SampleRun {
            ws: Workspace::sample(),
            srv: ServerRt::demo(),
        }
    }

    /// [`Workspace::judge`] against this server.
    pub fn judge(&self, key: Option<&str>, flags: &[&str]) -> Output {
        self.ws.judge(&self.srv.url(), key, flags)
    }
}

/// Asserts that no file of the workspace's store (the database, its WAL and
/// shared memory) holds any of `needles`; `what` names the secret.
pub fn assert_store_never_holds(ws: &Workspace, needles: &[&[u8]], what: &str) {
    for f in std::fs::read_dir(ws.db.parent().expect("the store's folder")).expect("read dir") {
        let p = f.expect("a directory entry").path();
        if p.file_name()
            .expect("a file name")
            .to_string_lossy()
            .starts_with("jury.db")
        {
            let bytes = std::fs::read(&p).expect("read a store file");
            for needle in needles {
                assert!(
                    !bytes.windows(needle.len()).any(|w| w == *needle),
                    "{} holds {what}",
                    p.display()
                );
            }
        }
    }
}
