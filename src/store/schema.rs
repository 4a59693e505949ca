//! Versioned migrations. Each entry moves the schema one version forward; the
//! version lives in SQLite's `user_version`, so a store opened by an older jury
//! is refused rather than misread.

pub const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    r#"
    CREATE TABLE items (
        id TEXT PRIMARY KEY,
        sent_text TEXT,
        sent_ms INTEGER,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        source_type TEXT NOT NULL,
        source_originator TEXT NOT NULL,
        source_channel TEXT NOT NULL,
        tags TEXT NOT NULL,
        position INTEGER NOT NULL
    );
    CREATE TABLE classifications (
        item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        description TEXT NOT NULL,
        available TEXT NOT NULL,
        selected TEXT,
        position INTEGER NOT NULL,
        PRIMARY KEY (item_id, id)
    ) WITHOUT ROWID;
    CREATE TABLE personas (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        definition TEXT NOT NULL
    );
    CREATE TABLE perspectives (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        text TEXT NOT NULL
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        protocol TEXT NOT NULL,
        mode INTEGER,
        persona_id TEXT NOT NULL,
        perspective_ids TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_hash TEXT NOT NULL,
        params TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        total INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL,
        note TEXT
    );
    CREATE TABLE verdicts (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id),
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        protocol TEXT NOT NULL,
        mode INTEGER,
        model TEXT NOT NULL,
        prompt_hash TEXT NOT NULL,
        scale TEXT NOT NULL,
        value TEXT NOT NULL,
        text TEXT NOT NULL,
        evaluated_selection TEXT,
        selection_mismatch INTEGER NOT NULL DEFAULT 0,
        latency_ms INTEGER NOT NULL DEFAULT 0,
        tokens INTEGER NOT NULL DEFAULT 0,
        raw TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (run_id, item_id, classification_id, perspective_id)
    );
    CREATE INDEX verdicts_by_item ON verdicts(item_id);
    CREATE INDEX verdicts_by_config ON verdicts(persona_id, mode, model, prompt_hash, perspective_id);
    CREATE TABLE failures (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id),
        kind TEXT NOT NULL,
        keys TEXT NOT NULL,
        reason TEXT NOT NULL,
        raw_response TEXT NOT NULL,
        http_status INTEGER,
        finish_reason TEXT,
        request TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX failures_by_run ON failures(run_id);
    CREATE TABLE labels (
        id INTEGER PRIMARY KEY,
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        who TEXT NOT NULL,
        scale TEXT NOT NULL,
        value TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        replaced_judge_value TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (item_id, classification_id, perspective_id, persona_id, who, scale)
    );
    CREATE INDEX labels_by_item ON labels(item_id);
    "#,
    // 2: items that are protocol inputs (rubric examples, conversations...).
    r#"
    ALTER TABLE items ADD COLUMN kind TEXT NOT NULL DEFAULT '';
    ALTER TABLE items ADD COLUMN payload TEXT;
    "#,
    // 3: protocol inputs skipped as invalid (rubric examples are skipped with
    // their index and reason, as the rubric harness reports them).
    r#"
    CREATE TABLE skipped_inputs (
        id INTEGER PRIMARY KEY,
        protocol TEXT NOT NULL,
        file TEXT NOT NULL,
        idx INTEGER NOT NULL,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (protocol, file, idx)
    );
    "#,
    // 4: where each item stood in its request (position bias, docs/design.md §7).
    r#"
    ALTER TABLE verdicts ADD COLUMN position INTEGER;
    ALTER TABLE verdicts ADD COLUMN request_items INTEGER;
    "#,
    // 5: a label given while blind review hid an existing verdict.
    r#"
    ALTER TABLE labels ADD COLUMN blind INTEGER NOT NULL DEFAULT 0;
    "#,
    // 6: every attempt is a request (failed and retried ones too); usage a
    // server never reported is counted as unknown, not as zero; the
    // structured path a run really used; the path each endpoint and model
    // answered a probe with (`--structured auto`).
    r#"
    ALTER TABLE runs ADD COLUMN requests INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN usage_unknown INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN structured TEXT;
    CREATE TABLE endpoint_paths (
        endpoint TEXT NOT NULL,
        model TEXT NOT NULL,
        structured TEXT NOT NULL,
        detail TEXT NOT NULL,
        probed_at TEXT NOT NULL,
        PRIMARY KEY (endpoint, model)
    );
    "#,
    // 7: who runs a run (pid and host) and when it last showed it was alive,
    // so another process tells a live run from one whose process ended.
    r#"
    ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
    ALTER TABLE runs ADD COLUMN owner_host TEXT;
    ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
    "#,
    // 8: the held-out split (`jury split`): its settings (one per workspace)
    // and the side of each (item, classification) labelled when it was made;
    // pairs labelled later take the side their hash gives (domain::split).
    // And the (item, classification) pairs a prompt version shows as
    // few-shot examples, so a report on `test` can refuse a version that
    // learnt from a test pair.
    r#"
    CREATE TABLE split_rule (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        holdout REAL NOT NULL,
        seed INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL
    );
    CREATE TABLE split_members (
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('train', 'test')),
        PRIMARY KEY (item_id, classification_id)
    );
    CREATE TABLE prompt_examples (
        prompt_hash TEXT NOT NULL,
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        PRIMARY KEY (prompt_hash, item_id, classification_id)
    );
    "#,
    // 9: the persona an item belongs to (its inbox owner), when it has one;
    // items stored before it take the persona their `inbox:NAME` tag names.
    r#"
    ALTER TABLE items ADD COLUMN owner TEXT;
    UPDATE items SET owner = (
        SELECT substr(t.value, 7) FROM json_each(items.tags) t
        WHERE substr(t.value, 1, 6) = 'inbox:' AND substr(t.value, 7) IN (SELECT id FROM personas)
        LIMIT 1);
    "#,
    // 10: label history and the workbench session. `labels` stays the current
    // answer (what export, report and agreement read); `label_events` keeps
    // every change to it, append-only: a set, a note, an import, an undo
    // (`value` NULL: the label was retracted). Existing labels become their
    // first event. `workbench_sessions` keeps each annotator's last screen
    // (persona, mode, filter, selected item...) as JSON, so a restart comes
    // back where the person left off.
    r#"
    CREATE TABLE label_events (
        id INTEGER PRIMARY KEY,
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        who TEXT NOT NULL,
        scale TEXT NOT NULL,
        value TEXT,
        note TEXT NOT NULL DEFAULT '',
        replaced_judge_value TEXT,
        created_at TEXT NOT NULL,
        blind INTEGER NOT NULL DEFAULT 0,
        kind TEXT NOT NULL
    );
    CREATE INDEX label_events_by_item ON label_events(item_id);
    INSERT INTO label_events (item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, kind)
        SELECT item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, 'set'
        FROM labels ORDER BY id;
    CREATE TABLE workbench_sessions (
        who TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        saved_at TEXT NOT NULL
    );
    "#,
    // 11: the combinations a running run has claimed (it is judging them),
    // so a second run started on the same ones (`--resume` twice at once)
    // leaves them to it. `config` is the persona, protocol, mode, model and
    // prompt set a verdict is matched on by `--resume`. A claim counts only
    // while its run is `running` and its owner alive (the rule that marks a
    // run interrupted); a run's end removes its claims.
    r#"
    CREATE TABLE run_claims (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        config TEXT NOT NULL,
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL
    );
    CREATE INDEX run_claims_by_config ON run_claims(config);
    CREATE INDEX run_claims_by_run ON run_claims(run_id);
    "#,
    // 12: which labels were given while the workbench listed items in the
    // seeded random `sample` order — a random sample of the listed items, the
    // condition under which `jury estimate`'s intervals are valid — and the
    // seed of that order. A label changed later keeps its row: the sample is
    // about which combinations were chosen, not their values.
    r#"
    CREATE TABLE label_samples (
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        who TEXT NOT NULL,
        seed INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (item_id, classification_id, perspective_id, persona_id, who)
    );
    "#,
    // 13: how sure the judge was of each verdict: a probability (NULL:
    // unknown), where it came from (`logprobs`; `repeats` is computed when
    // reading and never stored) and, for numeric scales, the
    // probability-weighted score.
    r#"
    ALTER TABLE verdicts ADD COLUMN confidence REAL;
    ALTER TABLE verdicts ADD COLUMN confidence_source TEXT;
    ALTER TABLE verdicts ADD COLUMN expected_score REAL;
    "#,
    // 14: runs sent as batches (the OpenAI Batch API, or a file for another
    // engine): each part's batch and file ids, stored before jury waits so
    // a killed process finds its batch again; and what each request of the
    // file holds, so an answer file is matched line by line.
    r#"
    CREATE TABLE batch_jobs (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        part INTEGER NOT NULL,
        kind TEXT NOT NULL,
        argv TEXT NOT NULL,
        boundary TEXT NOT NULL,
        tool_mode TEXT NOT NULL,
        batch_id TEXT,
        input_file_id TEXT,
        output_file_id TEXT,
        error_file_id TEXT,
        status TEXT NOT NULL,
        counts TEXT,
        imported INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (run_id, part)
    );
    CREATE TABLE batch_requests (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        part INTEGER NOT NULL,
        keys TEXT NOT NULL,
        max_tokens INTEGER NOT NULL,
        PRIMARY KEY (run_id, idx)
    );
    "#,
    // 15: which server answered the request that produced a verdict, when a
    // run spreads its requests over several (the base URL without
    // credentials or query; NULL for verdicts from before, or settled
    // without a request).
    r#"
    ALTER TABLE verdicts ADD COLUMN server TEXT;
    "#,
    // 16: a label's tags (why the judge was wrong, from the configured set;
    // comma-separated, sorted, '' for none), kept in its history too; and
    // the rows a person marked to come back to (`unsure` or `skip`, with a
    // note and no label). `row_marks` is append-only, like `label_events`:
    // a row's current mark is its newest event, and an event with `mark`
    // NULL clears it (`kind`: `mark`, `undo`, or `labelled` when the person
    // labelled the row). Marks live apart from labels so that nothing which
    // counts labels can count one.
    r#"
    ALTER TABLE labels ADD COLUMN tags TEXT NOT NULL DEFAULT '';
    ALTER TABLE label_events ADD COLUMN tags TEXT NOT NULL DEFAULT '';
    CREATE TABLE row_marks (
        id INTEGER PRIMARY KEY,
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        who TEXT NOT NULL,
        mark TEXT,
        note TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        kind TEXT NOT NULL
    );
    CREATE INDEX row_marks_by_item ON row_marks(item_id);
    "#,
    RUN_RECORDS,
    // 18: how a label's combination was chosen, beyond the sample order.
    // `label_samples` gains `how`: `sample` (given on the random order's
    // next item, or imported as sampled) or `judge` (given in a queue or
    // filter made of the judge's verdicts: selected by the judge, left out
    // of PPI and trust by default). Its `seed` may now be NULL: a label an
    // import says was sampled by an outside process, seed unknown. Rebuilt,
    // as SQLite cannot drop a NOT NULL.
    r#"
    CREATE TABLE label_samples_18 (
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        who TEXT NOT NULL,
        seed INTEGER,
        created_at TEXT NOT NULL,
        how TEXT NOT NULL DEFAULT 'sample',
        queue TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (item_id, classification_id, perspective_id, persona_id, who)
    );
    INSERT INTO label_samples_18 (item_id, classification_id, perspective_id, persona_id, who, seed, created_at, how)
        SELECT item_id, classification_id, perspective_id, persona_id, who, seed, created_at, 'sample' FROM label_samples;
    DROP TABLE label_samples;
    ALTER TABLE label_samples_18 RENAME TO label_samples;
    "#,
    // 19: adjudications, the reference label of a combination people
    // disagree on. Append-only like `label_events`: the standing
    // adjudication of a slot (combination, persona, scale) is its newest
    // row; `value` NULL is a retraction (an undo with nothing before it).
    // Plain SQL both SQLite and PostgreSQL accept.
    r#"
    CREATE TABLE adjudications (
        id INTEGER PRIMARY KEY,
        item_id TEXT NOT NULL,
        classification_id TEXT NOT NULL,
        perspective_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        scale TEXT NOT NULL,
        value TEXT,
        note TEXT NOT NULL DEFAULT '',
        who TEXT NOT NULL,
        created_at TEXT NOT NULL,
        kind TEXT NOT NULL
    );
    CREATE INDEX adjudications_by_slot ON adjudications(item_id, classification_id, perspective_id, persona_id, scale);
    "#,
    // 20: who is to label which item (`jury assign`), and which item a
    // person has open from their queue right now (a lease that ends at
    // `expires_at`, or when they label it or move on). Plain SQL both
    // SQLite and PostgreSQL accept: timestamps are RFC 3339 UTC text with
    // milliseconds, so they compare as text.
    r#"
    CREATE TABLE assignments (
        item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        who TEXT NOT NULL,
        assigned_at TEXT NOT NULL,
        assigned_by TEXT NOT NULL,
        PRIMARY KEY (item_id, who)
    );
    CREATE INDEX assignments_by_who ON assignments(who);
    CREATE TABLE leases (
        item_id TEXT NOT NULL PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
        who TEXT NOT NULL,
        expires_at TEXT NOT NULL
    );
    "#,
    TEAM_ROLES,
];

/// 21: who may write what on a team's store. On PostgreSQL a person is
/// their database role: the step creates the group roles `jury_annotator`
/// and `jury_adjudicator`, grants them their tables and turns on row-level
/// security, so a role writes only its own labels, notes, marks, tags and
/// adjudications (`team_roles::POSTGRES`, which `schema_pg::migration` runs
/// in its place). A SQLite file has one person and no roles: there the step
/// only moves the version, so both engines number their steps alike.
pub const TEAM_ROLES: &str = "-- 21: team roles and row-level security (PostgreSQL only)";

/// 17: each run's judge and settings as one typed, versioned record
/// (`domain::RunRecord`, JSON in `runs.record`) instead of a JSON blob read
/// by key name (`runs.params`) and, for a batch run, its command line
/// (`batch_jobs.argv`) parsed again by clap. After these columns are added,
/// `legacy_record::convert` (run by `Store::migrate` after this step, in
/// its transaction) reads each run's old params and command line once into
/// its record, empties `params` and drops `batch_jobs.argv`; a run it
/// cannot convert keeps its params and says why in `record_note`.
pub const RUN_RECORDS: &str = r#"
    ALTER TABLE runs ADD COLUMN record TEXT;
    ALTER TABLE runs ADD COLUMN record_note TEXT;
    "#;

pub const VERSION: i64 = MIGRATIONS.len() as i64;
