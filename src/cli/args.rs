//! The command-line contract (docs/design.md §5).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "jury",
    version,
    about = "A terminal workbench for calibrating LLM judges against people"
)]
pub struct Cli {
    /// The store: a SQLite file, or a PostgreSQL database as
    /// postgres://USER@HOST/DB (else JURY_DB, config, the platform data
    /// directory's jury.db). Environment and config are read by jury's
    /// settings, not here.
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the workbench (the default). A new workspace starts with the sample data.
    Tui(TuiArgs),
    /// Import items, personas, perspectives, labels or a Mode 1 request file.
    Import(ImportArgs),
    /// Judge items headlessly.
    #[command(
        after_help = "Exit codes: 0 every verdict is in; 2 combinations were left without a verdict: \
                      failures were recorded (see `jury failures RUN`; also when every one failed) \
                      or the run was cancelled (Ctrl-C, SIGTERM); 1 a fatal error: bad flags, \
                      a refused key, exhausted quota or --budget (what arrived is kept, --resume continues)."
    )]
    Run(Box<RunArgs>),
    /// Batch files for other engines (vLLM's run-batch, any engine that
    /// reads the OpenAI Batch API's JSONL): write a run's requests, read the answers.
    #[command(subcommand)]
    Batch(BatchCommand),
    /// Set a human label.
    Label(LabelArgs),
    /// The reference label where people disagree: give it (ITEM
    /// CLASSIFICATION VALUE), or list what waits for one (--list).
    Adjudicate(AdjudicateArgs),
    /// Give items to people: each item to --overlap of them, balanced,
    /// seeded; the workbench's "not labelled by me" queue puts each
    /// person's assigned items first. Re-running adds only items no one
    /// holds yet. --list shows each person's assigned, labelled and left.
    Assign(AssignArgs),
    /// Agreement figures: judge vs human, human vs human, mode vs mode...
    Report(ReportArgs),
    /// The classifier's accuracy per classification and judge: people's labels
    /// alone, and prediction-powered (PPI++) from the labels plus the judge's
    /// verdicts on every combination.
    Estimate(EstimateArgs),
    /// The next combinations of a sample order, for labelling elsewhere:
    /// `active` where the judge is unsure (each with its draw probability
    /// pi), or `random`.
    Sample(super::cmd_sample::SampleArgs),
    /// How many more labels an interval of ±WIDTH needs, per classification
    /// and judge: labels alone, uniform PPI++ and the active order.
    Plan(super::cmd_plan::PlanArgs),
    /// Which verdicts can stand without a person: per classification and
    /// judge, the lowest confidence threshold whose verdicts agree with
    /// people at a rate ≥ 1 − ALPHA with probability ≥ 1 − DELTA, and the
    /// share of verdicts at or above it. Needs verdicts with a confidence
    /// (`jury run --confidence logprobs`, or repeated runs) and labels that
    /// are a random sample.
    Trust(TrustArgs),
    /// Write verdicts, labels and failures.
    Export(ExportArgs),
    /// Print exactly what would be sent for one item (no key needed).
    Prompt(PromptArgs),
    /// Runs with status, counters and token usage.
    Runs(JsonFlag),
    /// Failures with their raw responses (all runs when RUN is omitted).
    Failures(FailuresArgs),
    /// What the workspace holds.
    List(ListArgs),
    /// A fixed train/test split of the labelled items (every pair of an item
    /// on its side), stratified by label; shows the current one without --holdout.
    Split(SplitArgs),
    /// Write a prompt set with worked examples from `train` labels (AwAg modes 1-3).
    Fewshot(FewshotArgs),
    /// Check the config, the store and the judge endpoint; exit 0 when all is well.
    Doctor(DoctorArgs),
    /// The store itself: copy a whole store between SQLite and PostgreSQL.
    #[command(subcommand)]
    Store(StoreCommand),
    /// Serve a deterministic offline judge on 127.0.0.1 (OpenAI wire format) for demos and tests.
    DemoJudge(DemoJudgeArgs),
}

#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// Write the run's requests as a batch file (one request a line, at most
    /// 50 000 lines and 200 MB a file; more makes FILE-2, FILE-3…) without
    /// sending them. Takes `jury run`'s flags.
    Export(Box<BatchExportArgs>),
    /// Read a batch's output file (`{custom_id, response, error}` lines) into
    /// the run it belongs to; lines that failed or are missing stay missing
    /// (exit 2; `jury run --resume` asks for them).
    Import(BatchImportArgs),
}

#[derive(Debug, Args)]
pub struct BatchExportArgs {
    /// The request file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct BatchImportArgs {
    /// An output file of the batch format (the Batch API's output or error
    /// file, or vLLM run-batch's -o).
    pub file: PathBuf,
    /// One JSON summary per run instead of a line.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct FewshotArgs {
    /// Build the examples from people's labels (on the `train` side of the
    /// workspace's split; `jury split` makes one).
    #[arg(long, required = true)]
    pub from_labels: bool,
    /// Examples per mode.
    #[arg(long, default_value_t = 8)]
    pub k: usize,
    /// The directory to write (new or empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The prompt set to start from (default: the embedded one).
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SplitArgs {
    /// The share of labelled items held out as `test` (e.g. 0.3). Without it,
    /// the current split is shown.
    #[arg(long, value_name = "SHARE")]
    pub holdout: Option<f64>,
    /// The seed of the split's hash: the same seed, labels and share give the
    /// same split on every machine.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Make a new split although the workspace has one (held-out figures and
    /// few-shot sets made from the old one no longer line up); also remakes
    /// a split made by pair before splits were by item.
    #[arg(long)]
    pub replace: bool,
    #[arg(long)]
    pub json: bool,
    /// Who makes the split (default: JURY_USER, then the login name).
    #[arg(long)]
    pub who: Option<String>,
}

#[derive(Debug, Args, Default)]
pub struct TuiArgs {
    /// A prompt set directory (a copy of prompts/).
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    #[arg(long)]
    pub model: Option<String>,
    /// dark, light, ansi16 or a theme file name in the config directory.
    #[arg(long)]
    pub theme: Option<String>,
    /// Who is labelling (default: JURY_USER, then the login name).
    #[arg(long)]
    pub who: Option<String>,
    /// The judge's server (else OPENAI_BASE_URL, config); repeat it to spread runs over several, URL#8 for 8 requests at once on that one.
    #[arg(long = "base-url", value_name = "URL[#N]")]
    pub base_url: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files or directories (.json, .jsonl; .csv files by name).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Which CSV column holds which field: id=ID,title=Subject,text=Body,
    /// classification:urgency=Urgent? (also sent, tags, persona, source_type,
    /// source_originator, source_channel). A classification's description:
    /// description:urgency=COLUMN, or its text; its full list of values:
    /// values:urgency=urgent|not (else the values its column holds). Fields
    /// left out are guessed from the headers; the mapping used and each
    /// classification's values are printed. For an Inspect log or promptfoo
    /// results: id=PATH,persona=PATH, where in each sample or test jury's
    /// item id and persona are (id=metadata.ticket, id=vars.message).
    #[arg(long, value_name = "FIELD=COLUMN,...")]
    pub map: Option<crate::import::CsvMap>,
    /// Import the valid records and report each skipped one.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Update items whose content changed even when they have verdicts or
    /// labels; let a CSV redefine a classification an earlier import
    /// defined with another description or values.
    #[arg(long)]
    pub replace: bool,
    #[arg(long)]
    pub json: bool,
    /// Who made any labels that do not say.
    #[arg(long)]
    pub who: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[arg(long, default_value = "awag")]
    pub protocol: String,
    /// AwAg mode: 1, 2 or 3 (awag only).
    #[arg(long)]
    pub mode: Option<u8>,
    /// The persona the judge role-plays (required for awag); `owner` judges
    /// each item as its owner, one run per owner persona.
    #[arg(long, default_value = "")]
    pub persona: String,
    /// One or more perspective ids, comma-separated (required for awag).
    #[arg(long, value_delimiter = ',')]
    pub perspective: Vec<String>,
    /// Rubric protocol: an extra dimension NAME=RUBRIC_FILE (repeatable); relevance and tone are used when none is given.
    #[arg(long, value_name = "NAME=FILE")]
    pub dimension: Vec<String>,
    /// Rubric protocol: leave out the default relevance and tone dimensions.
    #[arg(long)]
    pub no_default_dimensions: bool,
    /// Proposition protocol: the claim; `{{field}}` placeholders are filled per item (title, text, source.type, tags, payload.X...).
    #[arg(long)]
    pub claim: Option<String>,
    /// Proposition protocol: the id verdicts and labels use for the claim (default: claim-<hash of the claim>).
    #[arg(long)]
    pub claim_id: Option<String>,
    /// Proposition protocol: check (true/false) or score (0–9).
    #[arg(long, default_value = "check")]
    pub scoring: String,
    /// Proposition protocol: only judge items where this holds (`source.type == email and tags contains urgent`); elsewhere the claim is trivially true, without a request.
    #[arg(long, value_name = "EXPR")]
    pub precondition: Option<String>,
    /// Proposition protocol: show only the first N events of a conversation.
    #[arg(long, value_name = "N")]
    pub first_n: Option<usize>,
    /// Proposition protocol: show only the last N events of a conversation.
    #[arg(long, value_name = "N")]
    pub last_n: Option<usize>,
    /// The judge model (else JURY_MODEL, config, gpt-4o-mini).
    #[arg(long)]
    pub model: Option<String>,
    /// Requests in flight at once (with several servers: on each server that gives no #N).
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// The judge's server (else OPENAI_BASE_URL, config); repeat it to spread the run over several, URL#8 for 8 requests at once on that one.
    #[arg(long = "base-url", value_name = "URL[#N]")]
    pub base_url: Vec<String>,
    /// Items per request (mode 1) or entries per request (modes 2/3).
    #[arg(long)]
    pub batch_size: Option<usize>,
    #[arg(long)]
    pub limit: Option<usize>,
    /// Only these items, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub items: Option<Vec<String>>,
    /// A seeded random share of the items, in percent.
    #[arg(long, requires = "seed")]
    pub subset_percent: Option<f64>,
    #[arg(long)]
    pub seed: Option<u64>,
    /// Shuffle the items with this seed before cutting them into requests; repeat a mode 1 run with other seeds to measure position bias (`jury report`, position_bias).
    #[arg(long, value_name = "SEED")]
    pub shuffle_seed: Option<u64>,
    /// Skip combinations this persona/mode/perspective/model/prompt set already has.
    #[arg(long)]
    pub resume: bool,
    /// Send the run's requests as one batch through the OpenAI Batch API
    /// (upload, create, wait, download): half the price, answers within 24 h.
    /// The batch is stored with the run before jury waits: the same command
    /// with --resume waits for it again instead of sending anything twice.
    #[arg(long)]
    pub batch: bool,
    /// With --batch: seconds between looks at the batch's status.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub batch_poll: u64,
    /// With --batch: what Ctrl-C or SIGTERM does to the batch jury waits for: leave it running on the server (the same command with --resume waits for it again) or cancel it there. Without it, Ctrl-C on a terminal asks; otherwise the batch is left running.
    #[arg(long, value_name = "WHAT", value_parser = ["cancel", "leave"])]
    pub batch_on_interrupt: Option<String>,
    /// With --batch: what the batch failed or left unanswered: batch (sent again in follow-up batches, at most --max-attempts batches in all; what is left is recorded as failed and --resume asks for it in a new batch) or direct (asked again at once as streamed requests, each with --max-attempts and no more, at the model's full price).
    #[arg(long, value_name = "HOW", default_value = "batch", value_parser = ["batch", "direct"])]
    pub batch_retry: String,
    /// With several servers: seconds a server taken out of the run stays out the first time (twice that the next time, at most 10 minutes) [default: 30].
    #[arg(long, value_name = "SECS")]
    pub server_time_out: Option<f64>,
    /// Show the plan and send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: print the first request exactly as it would be sent (any protocol; no key needed).
    #[arg(long, requires = "dry_run")]
    pub show_request: bool,
    /// Ask again ("are you sure?") and record both answers (proposition protocol).
    #[arg(long)]
    pub double_check: bool,
    /// One JSON summary instead of the progress bar.
    #[arg(long)]
    pub json: bool,
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    /// Requests per batch that keep no new verdict before it gives up (at least 1); requests that
    /// keep new entries are free (at most this plus the batch's size in all), and the batch's time
    /// is at most this many request timeouts.
    #[arg(long, default_value_t = 3)]
    pub max_attempts: u32,
    /// Never send a request whose worst case (every prompt byte a token, every allowed answer token used, at the model's price) could take the run past this many dollars. Needs a priced model and a server that reports usage.
    #[arg(long, value_name = "USD")]
    pub budget: Option<f64>,
    /// Sampling temperature (a finite number ≥ 0).
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Ask for one JSON answer instead of a stream.
    #[arg(long)]
    pub no_stream: bool,
    /// How structured answers are asked for: auto (a forced tool call, moving on to json_schema, then JSON in the content when the server ignores or refuses it; the path found is remembered per endpoint and model), tools, json_schema or json (kept for the whole run). Config: structured.
    #[arg(long, value_name = "PATH", value_parser = ["auto", "tools", "json_schema", "json"])]
    pub structured: Option<String>,
    /// How each verdict gets a confidence: logprobs (the probability of the value's first token among the scale's values; asks for token probabilities and answers as JSON in the content, since tool calls carry none), repeats (the majority's share where one judge configuration judged a combination several times, e.g. runs differing only in --shuffle-seed; computed when reading) or off. Config: confidence [default: off].
    #[arg(long, value_name = "HOW", value_parser = ["logprobs", "repeats", "off"])]
    pub confidence: Option<String>,
    /// Judge the same combinations K times, one run each (needs a temperature above 0: at 0 a judge answers the same every time); with --confidence repeats, the majority's share is each combination's confidence.
    #[arg(long, value_name = "K")]
    pub repeats: Option<u32>,
    /// Seconds an answer may stay silent before it is cut (SSE keep-alive comments do not count) [default: 120; config: idle_timeout].
    #[arg(long, value_name = "SECS")]
    pub idle_timeout: Option<f64>,
    /// Seconds one request may take in all [default: 600; config: request_timeout].
    #[arg(long, value_name = "SECS")]
    pub request_timeout: Option<f64>,
    /// max_tokens of every request [default: 200 + 300 per entry; config: max_tokens_per_entry].
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Largest answer read, in MB; a longer one is cut and recorded as a failure [default: 8; config: max_answer_bytes].
    #[arg(long, value_name = "MB")]
    pub max_answer_mb: Option<f64>,
    /// A cascade of judges, in order: each MODEL[@URL] (asked through this
    /// run's server, or the one named) or an imported source's judge name.
    /// The first judges every combination (reusing verdicts it has); each
    /// next one is asked only what the ones before it do not keep, by
    /// `jury trust --cascade`'s calibration on the store's labels.
    #[arg(long, value_delimiter = ',', value_name = "A,B[,C]", conflicts_with_all = ["repeats", "batch", "model"])]
    pub cascade: Vec<String>,
    /// With --cascade: kept verdicts agree with people at ≥ 1 − ALPHA...
    #[arg(long, default_value_t = crate::report::trust::VIEW_ALPHA, value_parser = trust_alpha, requires = "cascade")]
    pub alpha: f64,
    /// ...with probability ≥ 1 − DELTA (each stage at DELTA / stages).
    #[arg(long, default_value_t = crate::report::trust::VIEW_DELTA, value_parser = trust_delta, requires = "cascade")]
    pub delta: f64,
    /// With --cascade: fewest calibration pairs at or above a threshold.
    #[arg(long, default_value_t = 30, requires = "cascade")]
    pub min_calibration: usize,
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    pub item: String,
    pub classification: String,
    /// 1–5, AGREE/DISAGREE, 0–9, true/false or no/partially/fully.
    pub value: String,
    /// Default: the item's owner (its inbox persona), else the only persona.
    #[arg(long)]
    pub persona: Option<String>,
    #[arg(long, default_value = "classification")]
    pub perspective: String,
    #[arg(long, default_value = "")]
    pub note: String,
    #[arg(long)]
    pub who: Option<String>,
    /// Why the judge was wrong: a tag from config.toml's `tags` (repeatable).
    #[arg(long = "tag", value_name = "NAME")]
    pub tags: Vec<String>,
}

#[derive(Debug, Args)]
pub struct AdjudicateArgs {
    /// The item (with CLASSIFICATION and VALUE; not with --list).
    #[arg(required_unless_present = "list")]
    pub item: Option<String>,
    #[arg(required_unless_present = "list")]
    pub classification: Option<String>,
    /// The reference label, on the people's scale: 1–5, AGREE/DISAGREE, 0–9,
    /// true/false or no/partially/fully.
    #[arg(required_unless_present = "list")]
    pub value: Option<String>,
    /// The combinations two or more people labelled and disagree on (a Likert
    /// 4 and 5 agree; 3 differs from both sides), not yet adjudicated, with
    /// every person's label and note.
    #[arg(long, conflicts_with_all = ["item", "note"])]
    pub list: bool,
    /// With --list: JSON.
    #[arg(long, requires = "list")]
    pub json: bool,
    /// Default: the persona the people labelled it for (when one).
    #[arg(long)]
    pub persona: Option<String>,
    #[arg(long, default_value = "classification")]
    pub perspective: String,
    #[arg(long, default_value = "")]
    pub note: String,
    /// Who adjudicates (else JURY_WHO, config, the user name).
    #[arg(long)]
    pub who: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Md,
    /// One self-contained page (inline SVG charts, no network); use with --out.
    Html,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum GroupBy {
    Classification,
    Persona,
    Mode,
    Model,
    Perspective,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    #[arg(long, value_enum)]
    pub by: Option<GroupBy>,
    /// Bootstrap resamples for the 95 % intervals (0 turns them off). Default:
    /// 1000, fewer (never under 50) when the report holds more than 200 000
    /// pairs, so the whole bootstrap stays within about 2×10⁸ draws.
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// The bootstrap's seed (the workbench's agreement view uses the same).
    #[arg(long, default_value_t = crate::report::DEFAULT_SEED)]
    pub seed: u64,
    /// Figures on one side of the workspace's held-out split only (`jury split`).
    #[arg(long, value_enum)]
    pub split: Option<SplitSide>,
    /// The table with one row per group and every column (wider than a
    /// terminal; the default table fits 80-120 columns).
    #[arg(long)]
    pub wide: bool,
    /// Write the report to this file (written whole, then renamed into place)
    /// instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Only the ranking: which judge configuration (mode, persona, model,
    /// prompt set) agrees best with people, on the combinations every one
    /// judged, with paired intervals and the human ceiling (table or json).
    #[arg(long)]
    pub rank: bool,
}

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// Error level: the intervals cover the truth with probability 1 − ALPHA
    /// (from 0.000001 to 0.5).
    #[arg(long, default_value_t = 0.05, value_parser = interval_alpha)]
    pub alpha: f64,
    /// One person's labels are the truth (default: the people's majority per
    /// combination; a tie is left out).
    #[arg(long)]
    pub who: Option<String>,
    #[arg(long, value_enum, default_value_t = EstimateFormat::Table)]
    pub format: EstimateFormat,
    /// Only labels recorded as a random sample (the workbench's `sample`
    /// order's next item, or imported as sampled), as the intervals assume;
    /// the others' combinations count as unlabelled.
    #[arg(long)]
    pub sampled_only: bool,
    /// Also count labels the judge selected (given in the disagreement-first
    /// queue or another list made of its verdicts): left out by default, as
    /// they bias the estimate.
    #[arg(long)]
    pub include_judge_selected: bool,
    /// The judge configuration the summary names (a part of its name, e.g.
    /// "gpt-4o"); default: the one the ranking puts first.
    #[arg(long)]
    pub judge: Option<String>,
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// Most disagreement allowed among trusted verdicts (e.g. 0.1: they agree
    /// with people at least 90 % of the time); the workbench's level by default.
    #[arg(long, default_value_t = crate::report::trust::VIEW_ALPHA, value_parser = trust_alpha)]
    pub alpha: f64,
    /// Chance the guarantee fails (e.g. 0.1: it holds with probability 0.9);
    /// the workbench's level by default.
    #[arg(long, default_value_t = crate::report::trust::VIEW_DELTA, value_parser = trust_delta)]
    pub delta: f64,
    /// Fewest calibration pairs at or above a threshold for it to be tried.
    #[arg(long, default_value_t = 30)]
    pub min_calibration: usize,
    /// One person's labels are the truth (default: the people's majority).
    #[arg(long)]
    pub who: Option<String>,
    /// Calibrate on the labels given in the workbench's random sample order
    /// alone (what the guarantee assumes); by default every label is used
    /// and the chosen ones are counted.
    #[arg(long)]
    pub sampled_only: bool,
    /// Also calibrate on labels the judge selected (given in the
    /// disagreement-first queue or another list made of its verdicts): left
    /// out by default, as they bias the guarantee.
    #[arg(long)]
    pub include_judge_selected: bool,
    /// The judge configuration the summary names (a part of its name);
    /// default: the one the ranking puts first.
    #[arg(long)]
    pub judge: Option<String>,
    /// List the verdicts that need a person instead (the escalation queue):
    /// per classification, the trusted configuration's verdicts below its
    /// threshold, without a confidence or undecided, not yet labelled.
    #[arg(long)]
    pub needs_person: bool,
    /// A cascade of judges, in order (names as the report gives them, or a
    /// part of one): the first keeps what it is sure of, the next is
    /// calibrated on what the first did not keep, and so on; each judge at
    /// δ/J so the kept verdicts together keep the guarantee. With
    /// --needs-person: the combinations no judge of the cascade keeps.
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub cascade: Vec<String>,
    #[arg(long, value_enum, default_value_t = TrustFormat::Table)]
    pub format: TrustFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TrustFormat {
    Table,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EstimateFormat {
    Table,
    Json,
    Csv,
}

/// The error level of an interval: from 1e-6 to 0.5. Below, the normal
/// quantile and the exact bounds run out of double precision (`1e-16`
/// printed `[NaN, NaN]`); above, an "interval" covers less often than not.
pub fn interval_alpha(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(a) if (1e-6..=0.5).contains(&a) => Ok(a),
        _ => Err(format!(
            "{s}: the error level must be a number from 0.000001 to 0.5 (e.g. 0.05 for 95 % intervals)"
        )),
    }
}

/// `jury trust --alpha`: in [1e-6, 1) (`analytics::trust::check_level`).
fn trust_alpha(s: &str) -> Result<f64, String> {
    trust_level("--alpha", s)
}

fn trust_delta(s: &str) -> Result<f64, String> {
    trust_level("--delta", s)
}

fn trust_level(name: &str, s: &str) -> Result<f64, String> {
    let x = s
        .parse::<f64>()
        .map_err(|_| format!("{name} {s}: not a number (e.g. 0.1)"))?;
    crate::analytics::trust::check_level(x).map_err(|why| format!("{name} {s}: {why}"))
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SplitSide {
    Train,
    Test,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExportFormat {
    Jsonl,
    Csv,
    /// The S8.8 success and S8.9 failure record shapes.
    Awag,
    /// The rubric harness's results.json: `results` and `skipped`.
    RubricResults,
    /// One CSV row per item, classification, perspective and persona: the
    /// classifier's value, each judge configuration's verdict and
    /// confidence, each person's label, in columns of their own.
    Wide,
    /// The wide table as JSON lines (one object per row, the same keys).
    WideJsonl,
    /// Combinations to label as a Label Studio task list (with --out FILE,
    /// its labeling config beside it as FILE's stem + `.label-config.xml`).
    LabelStudio,
    /// Combinations to label as Argilla records (`rg.Record.from_dict`).
    Argilla,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[arg(long, value_enum, default_value_t = ExportFormat::Jsonl)]
    pub format: ExportFormat,
    /// Write here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// label-studio, argilla: only the escalation queue (what `jury trust
    /// --needs-person` lists); by default every judged combination no
    /// person labelled.
    #[arg(long)]
    pub needs_person: bool,
}

#[derive(Debug, Args)]
pub struct PromptArgs {
    #[arg(long)]
    pub mode: u8,
    #[arg(long)]
    pub persona: String,
    #[arg(long, value_delimiter = ',', required = true)]
    pub perspective: Vec<String>,
    #[arg(long)]
    pub item: String,
    /// Print the request body as JSON.
    #[arg(long)]
    pub json: bool,
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    /// The judge model (else JURY_MODEL, config, gpt-4o-mini).
    #[arg(long)]
    pub model: Option<String>,
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct FailuresArgs {
    pub run: Option<i64>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ListWhat {
    Items,
    Personas,
    Perspectives,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[arg(value_enum)]
    pub what: ListWhat,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DemoJudgeArgs {
    /// Port on 127.0.0.1 (0 picks a free one and prints it).
    #[arg(long, default_value_t = 8089)]
    pub port: u16,
    /// Delay before each answer, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Copy every row of one store into a new one (a SQLite file or a
    /// postgres:// URL, either way), then check each table's row count and
    /// checksum read back from the copy.
    Copy(StoreCopyArgs),
}

#[derive(Debug, Args)]
pub struct StoreCopyArgs {
    /// The store to copy (a path or a postgres:// URL).
    #[arg(long, value_name = "PATH|URL")]
    pub from: PathBuf,
    /// The new store (a path that does not exist yet, or an empty PostgreSQL database).
    #[arg(long, value_name = "PATH|URL")]
    pub to: PathBuf,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Check only the config and the store (no network, no key needed).
    #[arg(long)]
    pub skip_endpoint: bool,
    /// The judge model (else JURY_MODEL, config, gpt-4o-mini).
    #[arg(long)]
    pub model: Option<String>,
    /// Longest wait for the endpoint, in seconds.
    #[arg(long, default_value_t = 60)]
    pub timeout_secs: u64,
    /// The server to check (else OPENAI_BASE_URL, config); repeatable: each is checked.
    #[arg(long = "base-url", value_name = "URL[#N]")]
    pub base_url: Vec<String>,
}

#[derive(Debug, Args)]
pub struct AssignArgs {
    /// The people, comma-separated (names as `--who` takes them elsewhere).
    #[arg(long, value_delimiter = ',', required_unless_present = "list")]
    pub who: Vec<String>,
    /// How many different people get each item (2 or more for double-coding).
    #[arg(long, default_value_t = 1)]
    pub overlap: usize,
    /// Only these items, comma-separated (default: every item).
    #[arg(long, value_delimiter = ',', conflicts_with = "sample")]
    pub items: Option<Vec<String>>,
    /// A seeded random sample of N items (the same N for the same --seed).
    #[arg(long, value_name = "N", requires = "seed")]
    pub sample: Option<usize>,
    /// The seed of the sample and of who gets which item (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Show each person's assigned, labelled and left instead of assigning.
    #[arg(long, conflicts_with_all = ["who", "items", "sample"])]
    pub list: bool,
    #[arg(long)]
    pub json: bool,
}
