//! The interactive workbench (docs/design.md §6), in layers: state in [`app`],
//! decisions in [`update`], side effects in [`effects`], drawing in
//! [`views`]. Between them: [`msg`] (messages in, effects out), [`layout`]
//! (sizes both drawing and update need), [`input`] (keys to actions) and
//! [`runtime`] (the terminal and the one loop). State, update and effects
//! never import the views.

pub mod app;
pub mod effects;
#[doc(hidden)]
pub mod fixtures;
pub mod input;
pub mod layout;
pub mod msg;
pub mod runtime;
pub mod strings;
pub mod theme;
pub mod update;
pub mod views;

use crate::config::Settings;
use crate::store::Store;
use app::{App, Loaded};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the CLI passes besides the settings.
#[derive(Debug, Default, Clone)]
pub struct TuiOptions {
    /// Imported when the store holds no items (a new workspace).
    pub sample_data_dir: Option<PathBuf>,
}

/// Reads everything but the items (those stream in, see [`stream_items`]).
pub fn load_without_items(store: &Store) -> crate::store::Result<Loaded> {
    let mut data = Loaded::default();
    store.for_each_verdict(|mut v| {
        v.raw = String::new();
        data.verdicts.push(v)
    })?;
    store.for_each_label(|l| data.labels.push(l))?;
    data.split = store.split()?;
    data.personas = store.personas()?;
    data.perspectives = store.perspectives()?;
    // Each row's "come back later" mark, as the session left it.
    data.marks = store.current_marks()?;
    data.adjudications = store.adjudications()?;
    data.origins = store.imported_runs()?.into_iter().collect();
    Ok(data)
}

/// Items read on a thread of their own and handed over through a small
/// bounded channel, so the full `Item`s never sit in memory all at once: the
/// workbench keeps only its compact rows (100 000 items stay well under
/// 300 MB at the peak, not only at rest).
pub fn stream_items(
    db_path: &Path,
) -> (
    std::sync::mpsc::Receiver<crate::domain::Item>,
    std::thread::JoinHandle<crate::store::Result<()>>,
) {
    let (tx, rx) = std::sync::mpsc::sync_channel(256);
    let path = db_path.to_path_buf();
    let reader = std::thread::spawn(move || {
        let store = Store::open(&path)?;
        // A closed receiver (the workbench gave up) stops the read.
        store.for_each_item(|item| tx.send(item).is_ok())
    });
    (rx, reader)
}

/// Reads what the workbench shows from the store: what the real start-up
/// reads ([`load_without_items`]), the items with it, so the two never
/// differ in what they load.
pub fn load(store: &Store) -> crate::store::Result<Loaded> {
    let mut data = load_without_items(store)?;
    data.items = store.items()?;
    Ok(data)
}

/// Builds the state the way `run` does, without a terminal (tests, benches).
pub fn build_app(settings: &Settings, mut data: Loaded) -> (App, Vec<String>) {
    let items = std::mem::take(&mut data.items);
    build_app_with_items(settings, items, data)
}

/// As [`build_app`], with the items coming from an iterator (`data.items` is ignored).
pub fn build_app_with_items(
    settings: &Settings,
    items: impl IntoIterator<Item = crate::domain::Item>,
    data: Loaded,
) -> (App, Vec<String>) {
    let dir = settings
        .config_path
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .or_else(crate::config::config_dir);
    let (keymap, kw) = input::keymap::Keymap::load(dir.as_deref());
    let (theme, tw) = theme::Theme::load(&settings.theme, dir.as_deref());
    let mut app = App::with_items(items, data, keymap, theme, &settings.model, &settings.who);
    app.choices.auto_advance = settings.auto_advance;
    app.choices.batch_poll = std::time::Duration::from_secs(settings.batch_poll);
    app.data.team.lease_for = std::time::Duration::from_secs(settings.lease_minutes * 60);
    // Test-only: a lease of a few seconds, so a test sees one held by a
    // killed workbench run out (config's least is a minute).
    if let Some(ms) = std::env::var(app::TEST_LEASE_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        app.data.team.lease_for = std::time::Duration::from_millis(ms);
    }
    app.data.tag_set = settings.tags.clone();
    app.runs.endpoint_error = settings.provider().err();
    if let Ok(cfg) = settings.provider() {
        app.runs.preview_cfg = crate::provider::ProviderConfig {
            api_key: None,
            ..cfg
        };
    }
    let (claims, cw) = app::claims::load(dir.as_deref());
    app.data.claims = claims;
    app.data.claims_file = dir.map(|d| d.join("claims.toml"));
    let mut warnings: Vec<String> = kw.into_iter().chain(tw).chain(cw).collect();
    use crate::config::StructuredChoice;
    match &settings.structured {
        None | Some(StructuredChoice::Auto) => {}
        Some(StructuredChoice::Path(m)) => app.choices.structured = Some(*m),
        // The value itself is not echoed: config errors never repeat the file.
        Some(StructuredChoice::Unknown(_)) => warnings.push(strings::msg::BAD_STRUCTURED.into()),
    }
    (app, warnings)
}

/// Loads the sample data into a store that holds nothing at all (see
/// [`Store::holds_nothing`]) and says so; a store with no items but other
/// work in it (labels, runs, personas, perspectives) is left as it is, with a
/// note on how to add items. Returns the status line to show, if any.
pub fn seed_new_workspace(
    store: &mut Store,
    opts: &TuiOptions,
    who: &str,
) -> anyhow::Result<Option<String>> {
    if !store.is_empty()? {
        return Ok(None);
    }
    if !store.holds_nothing()? {
        return Ok(Some(strings::msg::NO_ITEMS_OTHER_WORK.into()));
    }
    // The sample data: a directory when one is given, else the copy compiled
    // into the binary (works from anywhere).
    let (r, from) = match opts.sample_data_dir.as_ref().filter(|d| d.exists()) {
        Some(dir) => (
            crate::import::import_paths(store, std::slice::from_ref(dir), true, who)?,
            dir.display().to_string(),
        ),
        None => (
            crate::import::import_sample(store, who)?,
            strings::msg::BUNDLED_SAMPLE.into(),
        ),
    };
    Ok(Some(strings::msg::sample_loaded(
        r.items,
        r.personas,
        r.perspectives,
        &from,
    )))
}

/// `jury` / `jury tui`: opens the workbench on `settings.db_path`.
pub fn run(settings: Settings, opts: TuiOptions) -> anyhow::Result<()> {
    let mut store = Store::open(&settings.db_path)?;
    store.mark_abandoned_runs(&[])?;
    let mut notes = Vec::new();
    notes.extend(seed_new_workspace(&mut store, &opts, &settings.who)?);
    // Read before the labels: whatever others write from now on is taken
    // live (see `app::live`).
    let marker = store.change_marker()?;
    let data = load_without_items(&store)?;
    let run_claims = app::claims::from_runs(&store.runs()?);
    // A session that cannot be read is no session: the defaults, quietly.
    let kept = store
        .workbench_session(&settings.who)
        .ok()
        .flatten()
        .and_then(|json| update::session::parse(&json));
    // What `jury assign` gave this person, and who has what open now.
    let assigned = store.assigned_to(&settings.who)?;
    let people = store.assigned_people()?;
    let leases = store.leases_of_others(&settings.who, &crate::store::now())?;
    drop(store);
    let (items, reader) = stream_items(&settings.db_path);
    let (app, warnings) = build_app_with_items(&settings, items, data);
    reader
        .join()
        .map_err(|_| anyhow::anyhow!("the item reader panicked"))??;
    let prompts = Arc::new(crate::prompt::PromptSet::load(
        settings.prompts_dir.as_deref(),
    )?);
    let mut app = app;
    // claims.toml (read in build_app_with_items) wins over earlier runs.
    let from_config = std::mem::replace(&mut app.data.claims, run_claims);
    app.data.claims.extend(from_config);
    // Before the list is made: the "to adjudicate" filter reads it.
    app.data.team.people = people;
    app.set_team(assigned, &leases);
    app.data.live.marker = marker;
    if let Some(kept) = &kept {
        update::session::restore(&mut app, kept);
    }
    // A saved session's filter is the person's own choice; without one, a
    // person with assigned work left starts on their queue.
    if kept.as_ref().is_none_or(|k| k.filter.is_none()) {
        app.open_on_my_queue();
    }
    app.runs.prompts = prompts.clone();
    let note = notes.pop().map(|n| crate::tui::strings::flat(&n, 300));
    // First start: a new workspace was seeded now, or nothing was judged or
    // labelled yet. Later starts do not show the legend again.
    let first_start =
        note.is_some() || (app.data.labels.is_empty() && app.data.verdicts.is_empty());
    if first_start {
        app.chrome.legend = Some(note.clone().unwrap_or_default());
        app.scroll_list_to_cursor();
    }
    if let Some(w) = warnings.into_iter().next() {
        app.chrome.warn(crate::tui::strings::flat(&w, 300));
    } else if let Some(n) = note.filter(|_| !first_start) {
        app.chrome.info(n);
    }
    offer_replay(&mut app, &settings.db_path);
    let engine = effects::EngineLink {
        config: settings
            .provider()
            .ok()
            .map(|provider| crate::engine::EngineConfig {
                db_path: settings.db_path.clone(),
                provider,
                prompts,
            }),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let exit = rt.block_on(async move {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut exec = effects::Executor::new(settings.db_path.clone(), engine, tx);
        let mut signals = runtime::signals::Signals::new()?;
        let _guard = runtime::terminal::Guard;
        let mut term = runtime::terminal::init()?;
        let r =
            runtime::event_loop::run(&mut term, &mut app, &mut exec, &mut rx, &mut signals).await;
        // Waits for label writes already handed over before the process ends.
        exec.shutdown();
        let mut lost = None;
        if let Ok(runtime::event_loop::Exit::Signal(_)) = r {
            lost = keep_what_is_unsaved(&mut app, &mut rx, &settings.db_path).err();
        }
        r.map(|exit| (exit, lost))
    });
    drop(rt);
    let (exit, lost) = exit?;
    if let Some(lost) = lost {
        // The terminal is restored by now: stderr is seen.
        eprintln!("jury: {lost}");
    }
    match exit {
        // The conventional status of a process ended by a signal; everything
        // (terminal, runtime, writer) is already closed down.
        runtime::event_loop::Exit::Signal(sig) => std::process::exit(128 + sig),
        runtime::event_loop::Exit::Quit => Ok(()),
    }
}

/// Offers the labels an earlier session could not save; a recovery file
/// whose labels the store already holds is removed.
fn offer_replay(app: &mut App, db_path: &Path) {
    let path = effects::recovery::path_for(db_path);
    match effects::recovery::read(&path) {
        Ok((labels, bad)) => {
            let found = labels.len() + bad;
            let labels = update::quit::still_unsaved(app, labels);
            if bad > 0 {
                app.chrome.warn(strings::msg::recovery_unreadable(
                    &crate::tui::strings::flat(&path.display().to_string(), 200),
                    bad,
                ));
            }
            if !labels.is_empty() {
                app.chrome.popup = Some(app::Popup::Replay {
                    labels,
                    path: path.display().to_string(),
                });
            } else if found > 0 && bad == 0 {
                let _ = effects::recovery::clear(&path);
            }
        }
        Err(e) => app.chrome.warn(format!(
            "{}: {}",
            crate::tui::strings::flat(&path.display().to_string(), 200),
            crate::tui::strings::flat(&e.to_string(), 200)
        )),
    }
}

/// After a signal: takes the writer's last answers, then keeps every label
/// still not on disk in the recovery file for the next start.
fn keep_what_is_unsaved(
    app: &mut App,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<msg::Msg>,
    db_path: &Path,
) -> Result<(), String> {
    while let Ok(m) = rx.try_recv() {
        if matches!(
            m,
            msg::Msg::LabelSaved { .. } | msg::Msg::UndoRefused { .. }
        ) {
            // Effects are not run any more: only the labels' states matter here.
            let _ = update::update(app, m, chrono::Utc::now());
        }
    }
    let labels = app.unsaved_labels();
    if labels.is_empty() {
        return Ok(());
    }
    effects::recovery::keep(&effects::recovery::path_for(db_path), &labels)
        .map(|_| ())
        .map_err(|e| strings::msg::lost_labels(labels.len(), &e.to_string()))
}
