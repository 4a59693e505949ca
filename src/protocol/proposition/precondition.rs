//! Preconditions: `field == value`, `field != value`, `field contains value`,
//! joined by `and` / `or` (`and` binds tighter). Values may be quoted; an
//! unquoted value runs to the next `and` / `or`. Comparisons ignore case; a
//! field with several values (tags) matches when any value does (`!=` when none does).

use super::claim::field_values;
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
        // `groups` starts with one group and only grows.
        if let Some(g) = groups.last_mut() {
            g.push(Cmp {
                field,
                op,
                value: words.join(" "),
            });
        }
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
