//! Propositions (tinytroupe-proposition.txt): a claim about an item, a
//! conversation or what a persona sees, judged either as `check` (true/false
//! with justification and confidence) or `score` (0–9 on banded meanings).
//! Optional: a double-check turn ("are you sure?") whose first and revised
//! answers are both recorded, and a precondition (a filter over item fields)
//! that makes the claim trivially true, without a request, when it does not hold.

use crate::domain::{ComboKey, Item, Mode, Persona, Protocol, Scale};
use crate::protocol::guideline::{self, Event};
use crate::protocol::{JudgeProtocol, ParseOutcome, ParsedVerdict, Unit};
use crate::provider::{ChatCall, Message, ToolSpec};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The perspective id proposition verdicts and labels use.
pub const PERSPECTIVE: &str = "proposition";
pub const TOOL_CHECK: &str = "record_proposition_check";
pub const TOOL_SCORE: &str = "record_proposition_score";

const CHECK_SYSTEM: &str = include_str!("../../prompts/proposition/check_system.txt");
const SCORE_SYSTEM: &str = include_str!("../../prompts/proposition/score_system.txt");
const USER: &str = include_str!("../../prompts/proposition/user.txt");
const DOUBLE_CHECK: &str = include_str!("../../prompts/proposition/double_check.txt");
const CHECK_SCHEMA: &str = include_str!("../../prompts/proposition/schema_check.json");
const SCORE_SCHEMA: &str = include_str!("../../prompts/proposition/schema_score.json");

/// How the claim is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoring {
    /// true / false.
    Check,
    /// 0–9.
    Score,
}

impl Scoring {
    pub fn parse(s: &str) -> Result<Scoring, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "check" | "" => Ok(Scoring::Check),
            "score" => Ok(Scoring::Score),
            other => Err(format!("--scoring must be check or score, got '{other}'")),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Scoring::Check => "check",
            Scoring::Score => "score",
        }
    }
    pub fn scale(self) -> Scale {
        match self {
            Scoring::Check => Scale::Bool,
            Scoring::Score => Scale::Score09,
        }
    }
    fn tool(self) -> &'static str {
        match self {
            Scoring::Check => TOOL_CHECK,
            Scoring::Score => TOOL_SCORE,
        }
    }
}

/// What a proposition run asks (kept in `RunRequest.options`).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub claim: String,
    pub claim_id: String,
    pub scoring: Scoring,
    pub double_check: bool,
    pub precondition: Option<String>,
    pub first_n: Option<usize>,
    pub last_n: Option<usize>,
}

impl Settings {
    /// A stable id for a claim given without `--claim-id`.
    pub fn default_claim_id(claim: &str) -> String {
        use sha2::{Digest, Sha256};
        let h = Sha256::digest(claim.trim().as_bytes());
        format!(
            "claim-{}",
            h.iter()
                .take(4)
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        )
    }

    pub fn to_options(&self) -> Value {
        json!({
            "claim": self.claim,
            "claim_id": self.claim_id,
            "scoring": self.scoring.as_str(),
            "double_check": self.double_check,
            "precondition": self.precondition,
            "first_n": self.first_n,
            "last_n": self.last_n,
        })
    }

    pub fn from_options(o: &Value) -> Result<Settings, String> {
        let claim = o["claim"].as_str().unwrap_or("").trim().to_string();
        if claim.is_empty() {
            return Err("the proposition protocol needs a claim (--claim \"...\")".into());
        }
        let claim_id = match o["claim_id"].as_str().map(str::trim) {
            Some(id) if !id.is_empty() => id.to_string(),
            _ => Settings::default_claim_id(&claim),
        };
        let precondition = o["precondition"]
            .as_str()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from);
        if let Some(p) = &precondition {
            precondition::parse(p).map_err(|e| format!("--precondition: {e}"))?;
        }
        let n = |k: &str| o[k].as_u64().map(|n| n as usize);
        Ok(Settings {
            claim,
            claim_id,
            scoring: Scoring::parse(o["scoring"].as_str().unwrap_or("check"))?,
            double_check: o["double_check"].as_bool().unwrap_or(false),
            precondition,
            first_n: n("first_n"),
            last_n: n("last_n"),
        })
    }
}

/// The prompt texts (embedded; a prompt directory with a `proposition/` folder overrides them).
#[derive(Debug, Clone)]
pub struct PropositionPrompts {
    pub check_system: String,
    pub score_system: String,
    pub user: String,
    pub double_check: String,
    pub check_schema: Value,
    pub score_schema: Value,
}

impl PropositionPrompts {
    pub fn load(dir: Option<&Path>) -> Result<PropositionPrompts, String> {
        let read = |name: &str, fallback: &str| -> Result<String, String> {
            match dir
                .map(|d| d.join("proposition").join(name))
                .filter(|p| p.exists())
            {
                Some(p) => std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display())),
                None => Ok(fallback.to_string()),
            }
        };
        let schema = |name: &str, fallback: &str| -> Result<Value, String> {
            serde_json::from_str(&read(name, fallback)?)
                .map_err(|e| format!("proposition {name}: {e}"))
        };
        Ok(PropositionPrompts {
            check_system: read("check_system.txt", CHECK_SYSTEM)?,
            score_system: read("score_system.txt", SCORE_SYSTEM)?,
            user: read("user.txt", USER)?,
            double_check: read("double_check.txt", DOUBLE_CHECK)?,
            check_schema: schema("schema_check.json", CHECK_SCHEMA)?,
            score_schema: schema("schema_score.json", SCORE_SCHEMA)?,
        })
    }

    /// Hash of the texts and the settings that change what is asked.
    pub fn hash(&self, s: &Settings) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        let (system, schema) = match s.scoring {
            Scoring::Check => (&self.check_system, &self.check_schema),
            Scoring::Score => (&self.score_system, &self.score_schema),
        };
        let dc = if s.double_check {
            self.double_check.as_str()
        } else {
            ""
        };
        for part in [
            system.as_str(),
            self.user.as_str(),
            &schema.to_string(),
            dc,
            &s.claim,
            s.precondition.as_deref().unwrap_or(""),
            &format!("{:?}/{:?}", s.first_n, s.last_n),
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

pub struct Proposition {
    pub prompts: PropositionPrompts,
    pub settings: Settings,
    /// The persona whose view the claim is judged from (their specification is
    /// shown as context, and items in another persona's inbox are left out).
    pub persona: Option<Persona>,
    pub items: Arc<HashMap<String, Item>>,
}

impl Proposition {
    pub fn new(
        prompts: PropositionPrompts,
        settings: Settings,
        persona: Option<Persona>,
        items: Arc<HashMap<String, Item>>,
    ) -> Result<Proposition, String> {
        if let Some(p) = &settings.precondition {
            precondition::parse(p)?;
        }
        Ok(Proposition {
            prompts,
            settings,
            persona,
            items,
        })
    }

    fn item(&self, unit: &Unit) -> Result<&Item, String> {
        self.items
            .get(&unit.key.item_id)
            .ok_or_else(|| format!("item '{}' is not in the store", unit.key.item_id))
    }

    /// The context the claim is judged against.
    pub fn context(&self, item: &Item) -> String {
        if item.kind == guideline::KIND {
            let events = guideline::events(item);
            let total = events.len();
            let (shown, note) = window(&events, self.settings.first_n, self.settings.last_n);
            let mut out = format!("Conversation '{}' ({total} events", item.id);
            if let Some(n) = note {
                out.push_str(&format!("; {n}"));
            }
            out.push_str(")\n");
            out.push_str(&shown);
            return out;
        }
        let mut lines = vec![format!("Item '{}'", item.id)];
        if let Some(s) = &item.sent_text {
            lines.push(format!("Sent: {s}"));
        }
        let src = [
            item.source.kind.as_str(),
            item.source.originator.as_str(),
            item.source.channel.as_str(),
        ];
        if src.iter().any(|s| !s.is_empty()) {
            lines.push(format!(
                "Source: type {}, from {}, channel {}",
                or_dash(src[0]),
                or_dash(src[1]),
                or_dash(src[2])
            ));
        }
        if !item.tags.is_empty() {
            lines.push(format!("Tags: {}", item.tags.join(", ")));
        }
        if !item.title.is_empty() {
            lines.push(format!("Title: {}", item.title));
        }
        lines.push(String::new());
        lines.push(item.text.clone());
        lines.join("\n")
    }

    fn tool(&self) -> ToolSpec {
        let (schema, what) = match self.settings.scoring {
            Scoring::Check => (&self.prompts.check_schema, "true or false"),
            Scoring::Score => (&self.prompts.score_schema, "a score from 0 to 9"),
        };
        ToolSpec {
            name: self.settings.scoring.tool().into(),
            description: format!(
                "Record whether the claim holds ({what}), with the justification and your confidence."
            ),
            parameters: schema.clone(),
        }
    }

    fn parse_one(
        &self,
        unit: &Unit,
        answer: &str,
    ) -> Result<(ParsedVerdict, Value), (String, bool)> {
        let doc: Value = serde_json::from_str(answer.trim())
            .map_err(|e| (format!("the answer is not valid JSON ({e})"), true))?;
        let value = match doc.get("value") {
            Some(v) => self
                .settings
                .scoring
                .scale()
                .from_json(v)
                .map_err(|e| (e.to_string(), false))?,
            None => return Err(("no value".into(), false)),
        };
        let justification = doc
            .get("justification")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        if justification.is_empty() {
            return Err(("empty justification".into(), false));
        }
        match doc.get("confidence").and_then(Value::as_f64) {
            Some(c) if (0.0..=1.0).contains(&c) => {}
            Some(c) => return Err((format!("confidence {c} is outside 0–1"), false)),
            None => return Err(("no confidence (a number from 0 to 1)".into(), false)),
        }
        Ok((
            ParsedVerdict {
                key: unit.key.clone(),
                value,
                text: justification,
                evaluated_selection: None,
                selection_mismatch: false,
                raw: doc.to_string(),
            },
            doc,
        ))
    }
}

fn or_dash(s: &str) -> &str {
    if s.is_empty() { "-" } else { s }
}

/// The events to show under `first_n` / `last_n` (both: the first n, a gap
/// marker, then the last n), and a note saying what was left out.
pub fn window(
    events: &[Event],
    first_n: Option<usize>,
    last_n: Option<usize>,
) -> (String, Option<String>) {
    let total = events.len();
    let render = |evs: &[Event], from: usize| guideline::render_events(evs, from);
    match (first_n, last_n) {
        (Some(f), Some(l)) if f + l < total => {
            let head = render(&events[..f], 1);
            let tail = render(&events[total - l..], total - l + 1);
            (
                format!("{head}\n[… {} event(s) left out …]\n{tail}", total - f - l),
                Some(format!("the first {f} and the last {l} are shown")),
            )
        }
        (Some(f), None) if f < total => (
            render(&events[..f], 1),
            Some(format!("the first {f} are shown")),
        ),
        (None, Some(l)) if l < total => (
            render(&events[total - l..], total - l + 1),
            Some(format!("the last {l} are shown")),
        ),
        _ => (render(events, 1), None),
    }
}

/// The values of an item field by name, as the claim variables and the
/// precondition see them: `id`, `title`, `text`, `kind`, `sent`, `source.type`,
/// `source.originator`, `source.channel`, `tags` (several), `classification.ID`
/// (its selection), `payload.PATH` (a bare unknown name also looks in the payload).
/// `None` when the item has no such field.
pub fn field_values(item: &Item, field: &str) -> Option<Vec<String>> {
    let one = |s: &str| Some(vec![s.to_string()]);
    match field {
        "id" => one(&item.id),
        "title" => one(&item.title),
        "text" | "summary" => one(&item.text),
        "kind" => one(&item.kind),
        "sent" => item.sent_text.as_deref().and_then(one),
        "source.type" | "source.kind" | "source" => one(&item.source.kind),
        "source.originator" | "originator" | "source.from" => one(&item.source.originator),
        "source.channel" | "channel" => one(&item.source.channel),
        "tags" => Some(item.tags.clone()),
        f => {
            if let Some(c) = f
                .strip_prefix("classification.")
                .or_else(|| f.strip_prefix("classifications."))
            {
                let cls = item.classification(c)?;
                return one(cls.selected.as_deref().unwrap_or("none"));
            }
            let path = f.strip_prefix("payload.").unwrap_or(f);
            let mut v = &item.payload;
            for part in path.split('.') {
                v = match v {
                    Value::Object(m) => m.get(part)?,
                    Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
                    _ => return None,
                };
            }
            Some(match v {
                Value::Null => return None,
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(String::from)
                            .unwrap_or_else(|| x.to_string())
                    })
                    .collect(),
                other => vec![other.to_string()],
            })
        }
    }
}

/// Fills `{{variable}}` placeholders from the item's fields (see [`field_values`]);
/// `{{persona.name}}` / `{{persona.id}}` from the persona. A variable the item
/// has no value for is an error (a typo must not silently become an empty string).
pub fn render_claim(claim: &str, item: &Item, persona: Option<&Persona>) -> Result<String, String> {
    let mut out = String::with_capacity(claim.len());
    let mut rest = claim;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| "an unclosed '{{' in the claim".to_string())?;
        let name = after[..end].trim();
        let value = match (name, persona) {
            ("persona.name", Some(p)) => Some(vec![p.name.clone()]),
            ("persona.id", Some(p)) => Some(vec![p.id.clone()]),
            _ => field_values(item, name),
        };
        match value {
            Some(v) => out.push_str(&v.join(", ")),
            None => {
                return Err(format!(
                    "the claim variable {{{{{name}}}}} has no value for item '{}'",
                    item.id
                ));
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

impl JudgeProtocol for Proposition {
    fn protocol(&self) -> Protocol {
        Protocol::Proposition
    }

    fn mode(&self) -> Option<Mode> {
        None
    }

    fn scale(&self) -> Scale {
        self.settings.scoring.scale()
    }

    /// Content items and conversations (not rubric examples); with a persona,
    /// items in another persona's inbox are left out.
    fn units(&self, item_ids: &[String]) -> Vec<Unit> {
        item_ids
            .iter()
            .filter(|id| {
                self.items.get(*id).is_some_and(|i| {
                    (i.kind.is_empty() || i.kind == guideline::KIND)
                        && match (
                            &self.persona,
                            i.tags.iter().find_map(|t| t.strip_prefix("inbox:")),
                        ) {
                            (Some(p), Some(owner)) => owner == p.id.as_str(),
                            _ => true,
                        }
                })
            })
            .map(|id| Unit {
                key: ComboKey::new(id, &self.settings.claim_id, PERSPECTIVE),
                asked_selection: String::new(),
            })
            .collect()
    }

    fn batches(&self, units: &[Unit], _batch_size: usize) -> Vec<Vec<Unit>> {
        units.iter().map(|u| vec![u.clone()]).collect()
    }

    /// A precondition that does not hold makes the claim trivially true (9 when scoring).
    fn settle(&self, units: &[Unit]) -> Vec<ParsedVerdict> {
        let Some(expr) = &self.settings.precondition else {
            return Vec::new();
        };
        let Ok(filter) = precondition::parse(expr) else {
            return Vec::new();
        };
        let value = match self.settings.scoring {
            Scoring::Check => crate::domain::Value::Bool(true),
            Scoring::Score => crate::domain::Value::Score(9),
        };
        units
            .iter()
            .filter_map(|u| {
                let item = self.items.get(&u.key.item_id)?;
                if filter.holds(item) {
                    return None;
                }
                let text = format!(
                    "Trivially true: the precondition `{expr}` does not hold for this item, so the claim was not put to the judge."
                );
                Some(ParsedVerdict {
                    key: u.key.clone(),
                    value,
                    text: text.clone(),
                    evaluated_selection: None,
                    selection_mismatch: false,
                    raw: json!({
                        "value": value.to_json(),
                        "justification": text,
                        "confidence": 1.0,
                        "precondition": expr,
                        "precondition_holds": false,
                    })
                    .to_string(),
                })
            })
            .collect()
    }

    fn build_call(&self, batch: &[Unit], boundary: &str) -> Result<ChatCall, String> {
        let unit = batch.first().ok_or("empty batch")?;
        let item = self.item(unit)?;
        let claim = render_claim(&self.settings.claim, item, self.persona.as_ref())?;
        let delimit = |t: &str| super::awag::request::delimit(t, boundary);
        // The persona's id and name come from imported files too: inside the markers.
        let persona = match &self.persona {
            Some(p) => format!(
                "The claim is judged from the point of view of the person specified below; the specification says who they are, not what happened:\n{}",
                delimit(
                    &serde_json::to_string_pretty(
                        &serde_json::json!({"id": p.id, "name": p.name, "definition": p.definition})
                    )
                    .unwrap_or_default()
                )
            ),
            None => "No persona is involved.".to_string(),
        };
        let user = self
            .prompts
            .user
            .replace("{claim}", &delimit(&claim))
            .replace("{persona}", &persona)
            .replace("{context}", &delimit(&self.context(item)));
        let system = match self.settings.scoring {
            Scoring::Check => &self.prompts.check_system,
            Scoring::Score => &self.prompts.score_system,
        };
        Ok(ChatCall {
            messages: vec![
                Message::system(system.replace("{boundary}", boundary).trim_end()),
                Message::user(user.trim_end()),
            ],
            tool: self.tool(),
            max_tokens: None,
        })
    }

    fn parse(&self, batch: &[Unit], answer: &str) -> ParseOutcome {
        let mut out = ParseOutcome::default();
        let Some(unit) = batch.first() else {
            return out;
        };
        match self.parse_one(unit, answer) {
            Ok((v, _)) => out.verdicts.push(v),
            Err((why, malformed)) => {
                out.malformed = malformed;
                out.missing = vec![(unit.key.clone(), why)];
            }
        }
        out
    }

    /// `--double-check`: the first answer goes back as the assistant's turn,
    /// followed by "are you sure?".
    fn follow_up(
        &self,
        _batch: &[Unit],
        call: &ChatCall,
        answer: &str,
        first: &ParseOutcome,
    ) -> Option<ChatCall> {
        if !self.settings.double_check || first.verdicts.is_empty() {
            return None;
        }
        let mut messages = call.messages.clone();
        messages.push(Message {
            role: "assistant".into(),
            content: answer.trim().to_string(),
        });
        messages.push(Message::user(self.prompts.double_check.trim_end()));
        Some(ChatCall {
            messages,
            tool: call.tool.clone(),
            max_tokens: None,
        })
    }

    /// The revised answer is the verdict; the first stays in `raw`
    /// (`{"first", "revised", "flipped"}`), and a flip is named in the text.
    fn parse_follow_up(&self, batch: &[Unit], first: &ParseOutcome, answer: &str) -> ParseOutcome {
        let mut out = ParseOutcome::default();
        let (Some(unit), Some(v1)) = (batch.first(), first.verdicts.first()) else {
            return first.clone();
        };
        match self.parse_one(unit, answer) {
            Ok((mut v2, revised)) => {
                let flipped = v1.value != v2.value;
                let first_raw: Value = serde_json::from_str(&v1.raw).unwrap_or(Value::Null);
                v2.raw =
                    json!({"first": first_raw, "revised": revised, "flipped": flipped}).to_string();
                v2.text = if flipped {
                    format!(
                        "[revised on double-check: {} → {}] {}",
                        v1.value, v2.value, v2.text
                    )
                } else {
                    format!("[double-checked: kept {}] {}", v2.value, v2.text)
                };
                out.verdicts.push(v2);
            }
            Err((why, malformed)) => {
                out.malformed = malformed;
                out.missing = vec![(
                    unit.key.clone(),
                    format!(
                        "the double-check answer: {why} (first answer: {})",
                        v1.value
                    ),
                )];
            }
        }
        out
    }

    fn partial_texts(&self, batch: &[Unit], partial: &Value) -> Vec<(ComboKey, String)> {
        match (
            batch.first(),
            partial.get("justification").and_then(Value::as_str),
        ) {
            (Some(u), Some(t)) => vec![(u.key.clone(), t.to_string())],
            _ => Vec::new(),
        }
    }
}

/// Preconditions: `field == value`, `field != value`, `field contains value`,
/// joined by `and` / `or` (`and` binds tighter). Values may be quoted; an
/// unquoted value runs to the next `and` / `or`. Comparisons ignore case; a
/// field with several values (tags) matches when any value does (`!=` when none does).
pub mod precondition {
    use super::field_values;
    use crate::domain::Item;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Op {
        Eq,
        Ne,
        Contains,
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Cmp {
        pub field: String,
        pub op: Op,
        pub value: String,
    }

    /// Disjunction of conjunctions.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Filter(pub Vec<Vec<Cmp>>);

    fn tokens(s: &str) -> Result<Vec<(String, bool)>, String> {
        let mut out = Vec::new();
        let mut chars = s.chars().peekable();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
            } else if c == '"' || c == '\'' {
                chars.next();
                let mut t = String::new();
                loop {
                    match chars.next() {
                        Some(x) if x == c => break,
                        Some(x) => t.push(x),
                        None => return Err(format!("an unclosed {c} quote")),
                    }
                }
                out.push((t, true));
            } else if c == '=' || c == '!' {
                chars.next();
                if chars.next() != Some('=') {
                    return Err(format!("'{c}' must be followed by '=' (use == or !=)"));
                }
                out.push((format!("{c}="), false));
            } else {
                let mut t = String::new();
                while let Some(&x) = chars.peek() {
                    if x.is_whitespace() || x == '=' || x == '!' || x == '"' || x == '\'' {
                        break;
                    }
                    t.push(x);
                    chars.next();
                }
                out.push((t, false));
            }
        }
        Ok(out)
    }

    fn known_field(f: &str) -> bool {
        matches!(
            f,
            "id" | "title"
                | "text"
                | "summary"
                | "kind"
                | "sent"
                | "source"
                | "source.type"
                | "source.kind"
                | "source.originator"
                | "source.from"
                | "originator"
                | "source.channel"
                | "channel"
                | "tags"
        ) || ["payload.", "classification.", "classifications."]
            .iter()
            .any(|p| f.strip_prefix(p).is_some_and(|r| !r.is_empty()))
    }

    pub fn parse(s: &str) -> Result<Filter, String> {
        let toks = tokens(s)?;
        if toks.is_empty() {
            return Err("the precondition is empty".into());
        }
        let is_kw = |t: &(String, bool), kw: &str| !t.1 && t.0.eq_ignore_ascii_case(kw);
        let mut groups: Vec<Vec<Cmp>> = vec![Vec::new()];
        let mut i = 0;
        loop {
            let field = toks
                .get(i)
                .filter(|t| !t.1)
                .map(|t| t.0.clone())
                .ok_or_else(|| format!("expected a field name at word {} of `{s}`", i + 1))?;
            if !known_field(&field) {
                return Err(format!(
                    "unknown field '{field}' (fields: id, title, text, kind, sent, source.type, source.originator, source.channel, tags, classification.ID, payload.PATH)"
                ));
            }
            let op = match toks.get(i + 1) {
                Some(t) if is_kw(t, "==") => Op::Eq,
                Some(t) if is_kw(t, "!=") => Op::Ne,
                Some(t) if is_kw(t, "contains") => Op::Contains,
                other => {
                    return Err(format!(
                        "expected ==, != or contains after '{field}', found {}",
                        other
                            .map(|t| format!("'{}'", t.0))
                            .unwrap_or("the end".into())
                    ));
                }
            };
            i += 2;
            let mut words = Vec::new();
            while let Some(t) = toks.get(i) {
                if is_kw(t, "and") || is_kw(t, "or") {
                    break;
                }
                words.push(t.0.clone());
                i += 1;
            }
            if words.is_empty() {
                return Err(format!("no value after '{field}'"));
            }
            groups.last_mut().expect("never empty").push(Cmp {
                field,
                op,
                value: words.join(" "),
            });
            match toks.get(i) {
                None => break,
                Some(t) if is_kw(t, "or") => groups.push(Vec::new()),
                Some(_) => {}
            }
            i += 1;
        }
        Ok(Filter(groups))
    }

    impl Cmp {
        pub fn holds(&self, item: &Item) -> bool {
            let values = field_values(item, &self.field).unwrap_or_default();
            let want = self.value.to_lowercase();
            let eq = |v: &String| v.to_lowercase() == want;
            match self.op {
                Op::Eq => values.iter().any(eq),
                Op::Ne => !values.iter().any(eq),
                Op::Contains => {
                    if self.field == "tags" {
                        values.iter().any(eq)
                    } else {
                        values.iter().any(|v| v.to_lowercase().contains(&want))
                    }
                }
            }
        }
    }

    impl Filter {
        pub fn holds(&self, item: &Item) -> bool {
            self.0.iter().any(|g| g.iter().all(|c| c.holds(item)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Source;

    fn email() -> Item {
        Item {
            id: "m1".into(),
            title: "Server down".into(),
            text: "The build server is down again.".into(),
            source: Source {
                kind: "email".into(),
                originator: "ops@example.com".into(),
                channel: "inbox".into(),
            },
            tags: vec!["urgent".into(), "inbox:ana".into()],
            payload: json!({"ticket": {"priority": "p1"}}),
            ..Item::default()
        }
    }

    #[test]
    fn preconditions_parse_and_evaluate() {
        let i = email();
        let holds = |s: &str| precondition::parse(s).unwrap().holds(&i);
        assert!(holds("source.type == email"));
        assert!(holds("source.type == EMAIL and tags contains urgent"));
        assert!(!holds("source.type == rss"));
        assert!(holds("source.type == rss or tags contains urgent"));
        assert!(holds("title contains \"server down\""));
        assert!(holds("title contains server down"));
        assert!(!holds("tags contains urg"));
        assert!(holds("tags != spam"));
        assert!(holds("payload.ticket.priority == p1"));
        assert!(!holds("payload.missing == x"));
        assert!(holds("payload.missing != x"));
        assert!(precondition::parse("colour == red").is_err());
        assert!(precondition::parse("title = x").is_err());
        assert!(precondition::parse("title ==").is_err());
        assert!(precondition::parse("title == 'x").is_err());
        assert!(precondition::parse("title == a and").is_err());
    }

    #[test]
    fn claim_variables_are_filled() {
        let i = email();
        assert_eq!(
            render_claim("'{{title}}' from {{ source.originator }} is about {{payload.ticket.priority}} ({{tags}})", &i, None).unwrap(),
            "'Server down' from ops@example.com is about p1 (urgent, inbox:ana)"
        );
        assert!(
            render_claim("{{nope}}", &i, None)
                .unwrap_err()
                .contains("nope")
        );
    }
}
