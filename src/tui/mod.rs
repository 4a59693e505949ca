//! The interactive workbench (DESIGN §6): state in [`app`], decisions in
//! [`update`], side effects in [`effects`], drawing in [`views`], one loop in
//! [`event_loop`].

pub mod action;
pub mod app;
pub mod effects;
pub mod event_loop;
pub mod items;
pub mod keymap;
pub mod msg;
pub mod prompt;
pub mod protocol_rows;
pub mod terminal;
pub mod theme;
pub mod update;
pub mod views;

use crate::config::Settings;
use crate::store::Store;
use app::{App, Level, Loaded};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the CLI passes besides the settings.
#[derive(Debug, Default, Clone)]
pub struct TuiOptions {
    /// Imported when the store holds no items (a new workspace).
    pub sample_data_dir: Option<PathBuf>,
}

/// Reads what the workbench shows from the store.
pub fn load(store: &Store) -> crate::store::Result<Loaded> {
    let mut verdicts = Vec::new();
    store.for_each_verdict(|mut v| {
        v.raw = String::new();
        verdicts.push(v)
    })?;
    let mut labels = Vec::new();
    store.for_each_label(|l| labels.push(l))?;
    Ok(Loaded {
        items: store.items()?,
        personas: store.personas()?,
        perspectives: store.perspectives()?,
        verdicts,
        labels,
    })
}

/// Builds the state the way `run` does, without a terminal (tests, benches).
pub fn build_app(settings: &Settings, data: Loaded) -> (App, Vec<String>) {
    let dir = settings
        .config_path
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .or_else(crate::config::config_dir);
    let (keymap, kw) = keymap::Keymap::load(dir.as_deref());
    let (theme, tw) = theme::Theme::load(&settings.theme, dir.as_deref());
    let mut app = App::new(data, keymap, theme, &settings.model, &settings.who);
    app.endpoint_error = settings.provider().err();
    if let Ok(cfg) = settings.provider() {
        app.preview_cfg = crate::provider::ProviderConfig {
            api_key: None,
            ..cfg
        };
    }
    (app, kw.into_iter().chain(tw).collect())
}

/// `jury` / `jury tui`: opens the workbench on `settings.db_path`.
pub fn run(settings: Settings, opts: TuiOptions) -> anyhow::Result<()> {
    let mut store = Store::open(&settings.db_path)?;
    store.mark_abandoned_runs(&[])?;
    let mut notes = Vec::new();
    if store.is_empty()? {
        // A new workspace starts with the sample data: a directory when one is
        // given, else the copy compiled into the binary (works from anywhere).
        let (r, from) = match opts.sample_data_dir.filter(|d| d.exists()) {
            Some(dir) => (
                crate::import::import_paths(
                    &mut store,
                    std::slice::from_ref(&dir),
                    true,
                    &settings.who,
                )?,
                dir.display().to_string(),
            ),
            None => (
                crate::import::import_sample(&mut store, &settings.who)?,
                "the bundled sample data".into(),
            ),
        };
        notes.push(format!(
            "new workspace: loaded {} items, {} personas, {} perspectives from {}",
            r.items, r.personas, r.perspectives, from
        ));
    }
    let data = load(&store)?;
    drop(store);
    let prompts = Arc::new(crate::prompt::PromptSet::load(
        settings.prompts_dir.as_deref(),
    )?);
    let (mut app, warnings) = build_app(&settings, data);
    app.prompts = prompts.clone();
    if let Some(w) = warnings.into_iter().next() {
        app.message = Some((Level::Warning, crate::sanitize::one_line(&w, 300)));
    } else if let Some(n) = notes.pop() {
        app.message = Some((Level::Info, crate::sanitize::one_line(&n, 300)));
    }
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
    rt.block_on(async move {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut exec = effects::Executor::new(settings.db_path.clone(), engine, tx);
        let _guard = terminal::Guard;
        let mut term = terminal::init()?;
        let r = event_loop::run(&mut term, &mut app, &mut exec, rx).await;
        // Waits for label writes already handed over before the process ends.
        exec.shutdown();
        r
    })
}
