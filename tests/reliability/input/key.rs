//! Row 26: the API key never leaks, and a config that holds one must be
//! private.

use super::*;

const CANARY: &str = "sk-CANARY-RELIABILITY";

/// Row 26: the API key (env, config, echoed in an error body) is never in the
/// store, exports, logs, panics or Debug output; a config file that holds the
/// key must be private (0600).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reliability_26_api_key_never_leaks_config_must_be_private() {
    // Debug, Display and panics.
    let mut cfg = ProviderConfig::new("http://127.0.0.1:9/v1", "m");
    cfg.api_key = Some(Secret::new(CANARY));
    assert!(!format!("{cfg:?}").contains("CANARY"));
    assert!(!format!("{:?} {}", Secret::new(CANARY), Secret::new(CANARY)).contains("CANARY"));
    let client = jury::provider::Client::new(cfg.clone()).expect("client");
    assert!(!format!("{client:?}").contains("CANARY"));
    let c2 = cfg.clone();
    let payload =
        std::panic::catch_unwind(move || panic!("config was {c2:?}")).expect_err("panicked");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        msg.contains("config was") && !msg.contains("CANARY"),
        "{msg}"
    );

    // A run from the command line with the key in the environment; the server echoes it.
    let server = TestServer::start(|r: &RecordedRequest| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        Reply::status(401, json!({"error": {"message": format!("Incorrect API key provided: {auth}"), "code": "invalid_api_key"}}).to_string())
    })
    .await
    .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = base_store(dir.path());
    import_items(&db, &[item("a", "Hello", "World")]);
    let db2 = db.clone();
    let base = server.base_url();
    let run: Output = tokio::task::spawn_blocking(move || {
        jury(&db2)
            .args([
                "run",
                "--mode",
                "2",
                "--persona",
                "pa",
                "--perspective",
                "classification",
            ])
            .env("OPENAI_API_KEY", CANARY)
            .env("OPENAI_BASE_URL", base)
            .env("JURY_DEBUG", "1")
            .output()
    })
    .await
    .expect("join")
    .expect("jury run");
    assert_eq!(server.request_count(), 1);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(&*format!("Bearer {CANARY}"))
    );
    assert_ne!(run.status.code(), Some(0));
    let all = format!("{}{}", text(&run.stdout), text(&run.stderr));
    assert!(all.contains("401"), "{all}");
    assert!(!all.contains("CANARY"), "{all}");
    for args in [
        vec!["export", "--format", "jsonl"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "awag"],
        vec!["failures", "--json"],
        vec!["runs", "--json"],
    ] {
        let out = jury(&db)
            .args(&args)
            .env("OPENAI_API_KEY", CANARY)
            .output()
            .expect("jury");
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert!(
            !text(&out.stdout).contains("CANARY") && !text(&out.stderr).contains("CANARY"),
            "{args:?}"
        );
    }
    for e in std::fs::read_dir(dir.path()).expect("dir").flatten() {
        if e.path().is_file() {
            let bytes = std::fs::read(e.path()).expect("read");
            assert!(
                !bytes.windows(7).any(|w| w == b"CANARY-"),
                "key in {}",
                e.path().display()
            );
        }
    }

    // A config file holding the key must be 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let conf = dir.path().join("config.toml");
        std::fs::write(
            &conf,
            format!("api_key = \"{CANARY}\"\nbase_url = \"http://127.0.0.1:9/v1\"\n"),
        )
        .expect("write");
        std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let out = jury(&db)
            .args(["list", "personas"])
            .env("JURY_CONFIG", &conf)
            .output()
            .expect("jury");
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("chmod 600") && stderr.contains("644"),
            "{stderr}"
        );
        assert!(!stderr.contains("CANARY"), "{stderr}");
        std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let out = jury(&db)
            .args(["list", "personas"])
            .env("JURY_CONFIG", &conf)
            .output()
            .expect("jury");
        assert!(out.status.success(), "{}", text(&out.stderr));
        // Settings that hold the key print no key either.
        let s = format!(
            "{:?}",
            jury::config::Settings {
                db_path: db.clone(),
                base_url: None,
                base_urls: Vec::new(),
                api_key: Some(Secret::new(CANARY)),
                model: "m".into(),
                prompts_dir: None,
                theme: "dark".into(),
                who: "me".into(),
                who_named_by: None,
                temperature: None,
                idle_timeout: None,
                request_timeout: None,
                structured: None,
                max_tokens_per_entry: None,
                max_answer_bytes: None,
                confidence: None,
                auto_advance: Default::default(),
                batch_poll: 30,
                lease_minutes: 5,
                tags: Vec::new(),
                min_human_agreement: jury::report::people::DEFAULT_MIN_HUMAN_AGREEMENT,
                config_path: Some(conf.clone()),
            }
        );
        assert!(!s.contains("CANARY"), "{s}");
    }
}
