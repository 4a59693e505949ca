//! The search field read as a typed filter: free text plus terms that follow
//! the question — `urgency=not` (the classifier's value), `judge:urgency=2`
//! (what the judge said on that classification), `by:alice` (who labelled),
//! `tag:persona-misread` (a label's tag) and `split:test` (the side of the
//! held-out split), and words in the longer texts: `text:kettle` (the
//! item's body), `why:invoice` (the judge's reasoning on the rows in view),
//! `note:ring` (anyone's note). A leading `-` turns a term or a free word
//! around: `-by:alice` keeps the items `by:alice` drops.
//! A term that cannot be read is left out of the filter and named in
//! `errors`; parsing never fails.

use super::judge_cache::JudgeCache;
use super::text_cache::TextCache;
use super::workspace::Workspace;
use crate::domain::{Mode, Scale, Side, Value};
use crate::tui::strings::query as msg;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// The item's classification `cls` has the classifier value `value`.
    Classifier { cls: String, value: String },
    /// The judge's latest verdict on `cls` (current persona, mode and a
    /// shown perspective) is one of `values` (the typed value read on every
    /// scale it fits: "2" is Likert 2 and score 2); `text` as typed.
    Judge {
        cls: String,
        text: String,
        values: Vec<Value>,
    },
    /// Someone named `who` labelled a row of the item.
    By(String),
    /// A label on a row of the item carries this tag (why the judge was
    /// wrong, from the configured set).
    Tag(String),
    /// A classification of the item is on this side of the held-out split.
    Split(Side),
    /// The judge's latest verdict on a classification and shown perspective
    /// (current persona and mode) has a confidence `op` `bound` (`conf<0.7`);
    /// the bound kept as its bits so terms stay comparable.
    Conf {
        op: Cmp,
        bound_bits: u64,
        text: String,
    },
    /// A word (lower case) is in one of the item's longer texts.
    Text { field: Field, word: String },
    /// A free word (lower case) is in the id, title or sender; only ever
    /// negated (`-word`): the plain words are [`Query::text`].
    Word(String),
    /// The opposite of a term: the items it would drop.
    Not(Box<Term>),
}

/// The longer text a [`Term::Text`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `text:`: the item's body.
    Body,
    /// `why:`: the judge's text on the rows in view (latest verdicts).
    Why,
    /// `note:`: anyone's note on a label of the item.
    Note,
}

impl Field {
    pub fn prefix(self) -> &'static str {
        match self {
            Field::Body => "text:",
            Field::Why => "why:",
            Field::Note => "note:",
        }
    }
}

/// A comparison in a `conf` term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

impl Term {
    /// The term as the user would type it (for the list title).
    pub fn describe(&self) -> String {
        match self {
            Term::Classifier { cls, value } => format!("{cls}={value}"),
            Term::Judge { cls, text, .. } => format!("judge:{cls}={text}"),
            Term::By(who) => format!("by:{who}"),
            Term::Tag(tag) => format!("tag:{tag}"),
            Term::Split(side) => format!("split:{}", side.as_str()),
            Term::Conf { text, .. } => format!("conf{text}"),
            Term::Text { field, word } => format!("{}{word}", field.prefix()),
            Term::Word(w) => w.clone(),
            Term::Not(t) => format!("-{}", t.describe()),
        }
    }

    /// The term without its negation: what it reads.
    pub fn positive(&self) -> &Term {
        match self {
            Term::Not(t) => t.positive(),
            t => t,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// The free words, lower case, joined by one space (matched as one
    /// substring of the id, title or sender, as the plain search always was).
    pub text: String,
    pub terms: Vec<Term>,
    /// One line per term left out, saying why.
    pub errors: Vec<String>,
}

impl Query {
    /// Reads `search` against what the workspace holds.
    pub fn parse(search: &str, data: &Workspace) -> Query {
        let mut q = Query::default();
        let mut words = Vec::new();
        for token in search.split_whitespace() {
            // `-` alone is a word (ids hold dashes); `-x` is x turned around.
            let (negated, body) = match token.strip_prefix('-') {
                Some(rest) if !rest.is_empty() => (true, rest),
                _ => (false, token),
            };
            let lower = body.to_lowercase();
            match (term(token, body, &lower, data), negated) {
                (Some(Ok(t)), false) => q.terms.push(t),
                (Some(Ok(t)), true) => q.terms.push(Term::Not(Box::new(t))),
                (Some(Err(e)), _) => q.errors.push(e),
                (None, false) => words.push(lower),
                (None, true) => q.terms.push(Term::Not(Box::new(Term::Word(lower)))),
            }
        }
        q.text = words.join(" ");
        q
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.terms.is_empty()
    }

    /// Whether a term reads the judge's verdicts under the current mode.
    pub fn reads_judge(&self) -> bool {
        self.terms.iter().any(|t| {
            matches!(
                t.positive(),
                Term::Judge { .. }
                    | Term::Conf { .. }
                    | Term::Text {
                        field: Field::Why,
                        ..
                    }
            )
        })
    }
}

/// The term `body` (the token without its `-`) is, if it is one; `token`
/// as typed names it in an error. `None`: a free word.
fn term(token: &str, body: &str, lower: &str, data: &Workspace) -> Option<Result<Term, String>> {
    if let Some(rest) = lower
        .strip_prefix("conf")
        .filter(|r| r.starts_with(['<', '>']))
    {
        Some(conf_term(token, rest))
    } else if let Some(rest) = lower.strip_prefix("judge:") {
        Some(judge_term(token, rest, data))
    } else if let Some(rest) = lower.strip_prefix("by:") {
        Some(by_term(token, &body[3..], rest))
    } else if let Some(rest) = lower.strip_prefix("tag:") {
        Some(tag_term(token, rest, data))
    } else if let Some(rest) = lower.strip_prefix("split:") {
        Some(split_term(token, rest, data))
    } else if let Some(field) = [Field::Body, Field::Why, Field::Note]
        .into_iter()
        .find(|f| lower.starts_with(f.prefix()))
    {
        Some(text_term(token, field, &lower[field.prefix().len()..]))
    } else if lower.contains('=') && !lower.starts_with('=') {
        Some(classifier_term(token, lower, data))
    } else {
        None
    }
}

impl Query {
    /// Whether item `i` passes the free text and every term; `mode` is the
    /// mode whose verdicts `judge:` terms read (from `judge`, prepared for
    /// this query; `texts` likewise for `text:`, `why:` and `note:`).
    pub fn keeps(&self, data: &Workspace, i: usize, mode: Mode, c: Caches) -> bool {
        if !(self.text.is_empty() || has_word(data, i, &self.text)) {
            return false;
        }
        self.terms.iter().all(|t| holds(t, data, i, mode, c))
    }
}

/// What the terms read, prepared for the query.
#[derive(Clone, Copy)]
pub struct Caches<'a> {
    pub judge: &'a JudgeCache,
    pub texts: &'a TextCache,
}

/// Whether item `i` passes one term.
fn holds(t: &Term, data: &Workspace, i: usize, mode: Mode, c: Caches) -> bool {
    let it = &data.items[i];
    match t {
        Term::Classifier { cls, value } => it.classifications.iter().any(|c| {
            c.meta.id == *cls
                && c.selected
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case(value))
        }),
        Term::Judge { cls, values, .. } => c.judge.says(cls, mode, i, values),
        Term::By(who) => data
            .labels
            .get(&*it.id)
            .is_some_and(|ls| ls.iter().any(|e| e.label.who.eq_ignore_ascii_case(who))),
        Term::Tag(tag) => data.labels.get(&*it.id).is_some_and(|ls| {
            ls.iter()
                .any(|e| e.label.tags.iter().any(|t| t.eq_ignore_ascii_case(tag)))
        }),
        Term::Split(side) => data.split.as_ref().is_some_and(|s| {
            it.classifications
                .iter()
                .any(|c| s.side_of(&it.id, &c.meta.id) == *side)
        }),
        Term::Conf { op, bound_bits, .. } => {
            confidences(data, i, mode).any(|c| op.holds(c, f64::from_bits(*bound_bits)))
        }
        Term::Text { field, word } => c.texts.holds(*field, i, word),
        Term::Word(w) => has_word(data, i, w),
        Term::Not(t) => !holds(t, data, i, mode, c),
    }
}

/// Item `i`'s id, title or sender holds `lower` (already lower case).
fn has_word(data: &Workspace, i: usize, lower: &str) -> bool {
    let it = &data.items[i];
    contains_ci(&it.id, lower)
        || contains_ci(&it.title, lower)
        || contains_ci(&it.source.originator, lower)
}

/// The confidences of item `i`'s latest shown verdicts (one per
/// combination), where known.
fn confidences(data: &Workspace, i: usize, mode: Mode) -> impl Iterator<Item = f64> + '_ {
    super::text_cache::shown_verdicts(data, i, mode)
        .into_iter()
        .filter_map(|v| v.confidence.map(|c| c.value))
}

/// `conf<0.7`, `conf>=0.9`: `rest` is what follows `conf`.
fn conf_term(token: &str, rest: &str) -> Result<Term, String> {
    let (op, number) = if let Some(n) = rest.strip_prefix("<=") {
        (Cmp::Le, n)
    } else if let Some(n) = rest.strip_prefix(">=") {
        (Cmp::Ge, n)
    } else if let Some(n) = rest.strip_prefix('<') {
        (Cmp::Lt, n)
    } else if let Some(n) = rest.strip_prefix('>') {
        (Cmp::Gt, n)
    } else {
        return Err(msg::bad_conf(token));
    };
    match number.parse::<f64>() {
        Ok(b) if (0.0..=1.0).contains(&b) => Ok(Term::Conf {
            op,
            bound_bits: b.to_bits(),
            text: rest.to_string(),
        }),
        _ => Err(msg::bad_conf(token)),
    }
}

/// Case-insensitive substring test; `needle_lower` is already lower case.
/// ASCII text is compared only where its first byte matches (found with
/// `memchr`): a keystroke reads the id, title and sender of 100 000 items,
/// 1.2–2.5 times faster than comparing at every offset.
pub fn contains_ci(hay: &str, needle_lower: &str) -> bool {
    if hay.is_ascii() && needle_lower.is_ascii() {
        let h = hay.as_bytes();
        let Some((&first, rest)) = needle_lower.as_bytes().split_first() else {
            return true;
        };
        let Some(last) = h.len().checked_sub(rest.len() + 1) else {
            return false;
        };
        memchr::memchr2_iter(first, first.to_ascii_uppercase(), &h[..=last]).any(|at| {
            h[at + 1..=at + rest.len()]
                .iter()
                .zip(rest)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
        })
    } else {
        hay.to_lowercase().contains(needle_lower)
    }
}

/// `cls=value` split at the first `=`, the classification checked.
fn cls_and_value<'a>(
    token: &str,
    text: &'a str,
    data: &'a Workspace,
) -> Result<(&'a str, &'a [String], &'a str), String> {
    let (cls, value) = text.split_once('=').unwrap_or((text, ""));
    let Some((id, values)) = data
        .cls_values
        .iter()
        .find(|(id, _)| id.eq_ignore_ascii_case(cls))
    else {
        let known: Vec<&str> = data.cls_values.keys().map(String::as_str).collect();
        return Err(msg::unknown_classification(token, cls, &known));
    };
    if value.is_empty() {
        return Err(msg::no_value(token, values));
    }
    Ok((id, values, value))
}

fn classifier_term(token: &str, lower: &str, data: &Workspace) -> Result<Term, String> {
    let (cls, values, value) = cls_and_value(token, lower, data)?;
    match values.iter().find(|v| v.eq_ignore_ascii_case(value)) {
        Some(v) => Ok(Term::Classifier {
            cls: cls.to_string(),
            value: v.to_lowercase(),
        }),
        None => Err(msg::unknown_value(token, cls, value, values)),
    }
}

fn judge_term(token: &str, rest: &str, data: &Workspace) -> Result<Term, String> {
    let (cls, _, value) = cls_and_value(token, rest, data)?;
    // Any scale a judge answers on: Likert 1–5, AGREE/DISAGREE, 0–9,
    // true/false, no/partially/fully.
    let values: Vec<Value> = [
        Scale::Likert,
        Scale::Agreement,
        Scale::Score09,
        Scale::Bool,
        Scale::Degree,
    ]
    .iter()
    .filter_map(|s| s.parse(value).ok())
    .collect();
    if values.is_empty() {
        return Err(msg::not_a_judge_value(token, value));
    }
    Ok(Term::Judge {
        cls: cls.to_string(),
        text: value.to_string(),
        values,
    })
}

/// `text:word`, `why:word`, `note:word`: `word` is what follows the colon.
fn text_term(token: &str, field: Field, word: &str) -> Result<Term, String> {
    if word.is_empty() {
        return Err(msg::no_word(token, field.prefix()));
    }
    Ok(Term::Text {
        field,
        word: word.to_string(),
    })
}

fn by_term(token: &str, original: &str, lower: &str) -> Result<Term, String> {
    if lower.is_empty() {
        return Err(msg::no_annotator(token));
    }
    Ok(Term::By(original.to_string()))
}

/// `tag:NAME`: a tag of the configured set (any case).
fn tag_term(token: &str, rest: &str, data: &Workspace) -> Result<Term, String> {
    match data.tag_set.iter().find(|t| t.eq_ignore_ascii_case(rest)) {
        Some(t) => Ok(Term::Tag(t.clone())),
        None => Err(msg::unknown_tag(token, &data.tag_set)),
    }
}

fn split_term(token: &str, rest: &str, data: &Workspace) -> Result<Term, String> {
    if data.split.is_none() {
        return Err(msg::no_split(token));
    }
    match rest {
        "test" => Ok(Term::Split(Side::Test)),
        "train" => Ok(Term::Split(Side::Train)),
        _ => Err(msg::bad_side(token)),
    }
}
