//! The Files and Batches API of the test server, and jury's client of it.
use super::*;
use crate::provider::ProviderConfig;
use crate::provider::batch::BatchClient;

fn line(i: usize) -> String {
    json!({"custom_id": format!("jury-1-{i}"), "method": "POST", "url": "/v1/chat/completions",
        "body": {"model": "m", "messages": [{"role": "user", "content": "q"}]}})
    .to_string()
}

async fn download(client: &BatchClient, id: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.jsonl");
    client.download_to(id, &path).await.expect("download");
    std::fs::read_to_string(&path).expect("the file")
}

async fn started(script: BatchScript) -> (super::super::TestServer, BatchClient) {
    let api = BatchApi::new(script, |_| Reply::content("fine"));
    let server = super::super::TestServer::start(move |r| api.reply(r))
        .await
        .expect("start");
    let client = BatchClient::new(&ProviderConfig::new(server.base_url(), "m")).expect("client");
    (server, client)
}

#[tokio::test]
async fn a_batch_goes_from_validating_to_completed_with_its_answers() {
    let (_server, client) = started(BatchScript {
        polls_in_progress: 1,
        ..BatchScript::default()
    })
    .await;
    let file = client
        .upload("r.jsonl", format!("{}\n{}\n", line(0), line(1)).as_bytes())
        .await
        .expect("upload");
    let b = client.create(&file, "t").await.expect("create");
    assert_eq!(b.status, "validating");
    let mut seen = vec![b.status.clone()];
    let mut last = b;
    while !last.is_over() {
        last = client.get(&last.id).await.expect("look");
        seen.push(last.status.clone());
    }
    seen.dedup();
    assert_eq!(
        seen,
        ["validating", "in_progress", "finalizing", "completed"]
    );
    assert_eq!(last.counts, (2, 0, 2));
    let text = download(
        &client,
        last.output_file_id.as_deref().expect("an output file"),
    )
    .await;
    let (lines, _) = crate::engine::batch_file::read_answers(&text);
    assert_eq!(lines.len(), 2);
    let body = lines[0].answer.as_ref().expect("answered");
    assert_eq!(body["choices"][0]["message"]["content"], "fine");
}

#[tokio::test]
async fn an_expired_batch_answers_part_and_a_cancelled_one_none() {
    let (_server, client) = started(BatchScript {
        expire_after: Some(1),
        ..BatchScript::default()
    })
    .await;
    let file = client
        .upload("r.jsonl", format!("{}\n{}\n", line(0), line(1)).as_bytes())
        .await
        .expect("upload");
    let mut b = client.create(&file, "t").await.expect("create");
    while !b.is_over() {
        b = client.get(&b.id).await.expect("look");
    }
    assert_eq!(b.status, "expired");
    assert_eq!(b.counts, (1, 1, 2));
    let err = download(&client, b.error_file_id.as_deref().expect("an error file")).await;
    assert!(err.contains("batch_expired"));

    let c = client.create(&file, "t").await.expect("create");
    let c = client.cancel(&c.id).await.expect("cancel");
    assert_eq!(c.status, "cancelling");
    let c = client.get(&c.id).await.expect("look");
    assert_eq!(c.status, "cancelled");
    assert!(c.output_file_id.is_none());
}

mod faults {
    use super::*;
    use crate::provider::batch::{ApiFault, Limits};
    use crate::testserver::TestServer;

    async fn with_faults(
        script: BatchScript,
        faults: Faults,
    ) -> (TestServer, Arc<BatchApi>, BatchClient) {
        let api = BatchApi::new(script, |_| Reply::content("fine"));
        api.set_faults(faults);
        let a = api.clone();
        let server = TestServer::start(move |r| a.reply(r)).await.expect("start");
        let client =
            BatchClient::new(&ProviderConfig::new(server.base_url(), "m")).expect("client");
        (server, api, client)
    }

    fn two_lines() -> Vec<u8> {
        format!("{}\n{}\n", line(0), line(1)).into_bytes()
    }

    /// A 307 to another port on upload is not followed: the request file
    /// (and the key) never reach the other server. It used to be re-sent
    /// there whole.
    #[tokio::test]
    async fn a_redirect_to_another_origin_is_never_followed() {
        let elsewhere = TestServer::start(|_| Reply::status(200, r#"{"id":"file-x"}"#))
            .await
            .expect("start");
        for call in [
            Call::Upload,
            Call::Create,
            Call::Look,
            Call::List,
            Call::Download,
        ] {
            let faults = Faults {
                redirect: Some((call, format!("{}/files", elsewhere.base_url()))),
                ..Faults::default()
            };
            let (_server, _api, client) = with_faults(BatchScript::default(), faults).await;
            let got = match call {
                Call::Upload => client.upload("r.jsonl", &two_lines()).await.map(|_| ()),
                Call::Create => client.create("file-1", "t").await.map(|_| ()),
                Call::Look => client.get("batch_1").await.map(|_| ()),
                Call::List => client.find("file-1", 1).await.map(|_| ()),
                _ => {
                    let dir = tempfile::tempdir().expect("tempdir");
                    client
                        .download_to("file-1", &dir.path().join("o"))
                        .await
                        .map(|_| ())
                }
            };
            let Err(ApiFault::Lasting(why)) = got else {
                panic!("{call:?}: {got:?}")
            };
            assert!(why.contains("does not follow"), "{why}");
        }
        assert_eq!(
            elsewhere.request_count(),
            0,
            "nothing reached the other origin"
        );
    }

    /// A status answer past its cap is not read (a 150 MB status body was
    /// parsed on every poll); an output file past its cap is not written
    /// whole, and one within it goes to disk, not memory.
    #[tokio::test]
    async fn status_bodies_and_downloads_are_capped() {
        let faults = Faults {
            status_padding: 2 << 20,
            output_padding: 4096,
            ..Faults::default()
        };
        let (_server, api, client) = with_faults(BatchScript::default(), faults).await;
        let file = client
            .upload("r.jsonl", &two_lines())
            .await
            .expect("upload");
        let got = client.create(&file, "t").await;
        let Err(ApiFault::Lasting(why)) = got else {
            panic!("{got:?}")
        };
        assert!(why.contains("larger than 1048576 bytes"), "{why}");
        // The batch was made; its output read under a small cap.
        api.set_faults(Faults {
            output_padding: 4096,
            ..Faults::default()
        });
        let id = api.created()[0].clone();
        let mut b = client.get(&id).await.expect("look");
        while !b.is_over() {
            b = client.get(&id).await.expect("look");
        }
        let out = b.output_file_id.expect("an output file");
        let small = client.with_limits(Limits {
            download_bytes: 2048,
            ..Limits::default()
        });
        let dir = tempfile::tempdir().expect("tempdir");
        let got = small.download_to(&out, &dir.path().join("o")).await;
        let Err(ApiFault::Lasting(why)) = got else {
            panic!("{got:?}")
        };
        assert!(why.contains("larger than 2048 bytes"), "{why}");
    }

    /// A create the server made but whose answer never came is found by
    /// its request file, not made again.
    #[tokio::test]
    async fn a_batch_whose_create_answer_was_lost_is_found_by_its_file() {
        let (_server, api, client) = with_faults(BatchScript::default(), Faults::default()).await;
        let other = client
            .upload("o.jsonl", &two_lines())
            .await
            .expect("upload");
        client.create(&other, "other").await.expect("create");
        api.set_faults(Faults {
            drop_create_answers: 1,
            ..Faults::default()
        });
        let file = client
            .upload("r.jsonl", &two_lines())
            .await
            .expect("upload");
        let got = client.create(&file, "t").await;
        assert!(matches!(got, Err(ApiFault::Passing(_))), "{got:?}");
        assert_eq!(api.created().len(), 2, "the server made it");
        let found = client.find(&file, 3).await.expect("list").expect("found");
        assert_eq!(found.id, api.created()[1]);
        assert_eq!(found.input_file_id.as_deref(), Some(file.as_str()));
        assert_eq!(client.find("file-none", 3).await.expect("list"), None);
    }

    /// 503s, 429s and dropped connections on a status poll are held
    /// through, in paused time; they come back as passing faults one by one.
    #[tokio::test(start_paused = true)]
    async fn a_poll_holds_through_503_429_and_dropped_connections() {
        for failure in [Failure::Unavailable, Failure::TooMany, Failure::Dropped] {
            let (_server, api, client) =
                with_faults(BatchScript::default(), Faults::default()).await;
            let file = client
                .upload("r.jsonl", &two_lines())
                .await
                .expect("upload");
            let b = client.create(&file, "t").await.expect("create");
            api.set_faults(Faults {
                failing_looks: 4,
                failure,
                ..Faults::default()
            });
            let once = client.get(&b.id).await;
            assert!(matches!(once, Err(ApiFault::Passing(_))), "{once:?}");
            let mut retries = 0;
            let got = client
                .patiently(|| client.get(&b.id), |_, _| retries += 1)
                .await;
            assert_eq!(got.map(|s| s.id), Ok(b.id.clone()), "{failure:?}");
            assert_eq!(retries, 3, "{failure:?}");
        }
    }

    /// A cancel the server does not answer is given up after a few seconds
    /// (paused time): an interrupted run leaves its batch instead of hanging.
    #[tokio::test(start_paused = true)]
    async fn a_cancel_that_hangs_is_given_up_within_seconds() {
        let faults = Faults {
            cancel_delay: Some(std::time::Duration::from_secs(3600)),
            ..Faults::default()
        };
        let (_server, _api, client) = with_faults(BatchScript::default(), faults).await;
        let file = client
            .upload("r.jsonl", &two_lines())
            .await
            .expect("upload");
        let b = client.create(&file, "t").await.expect("create");
        let started = tokio::time::Instant::now();
        let got = client.cancel(&b.id).await;
        assert!(got.is_err(), "{got:?}");
        assert!(
            started.elapsed() <= crate::provider::batch::CANCEL_WITHIN,
            "{:?}",
            started.elapsed()
        );
    }
}
