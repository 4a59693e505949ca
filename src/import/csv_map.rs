//! Which CSV column holds which jury field: `--map id=ID,title=Subject,...`
//! and the guess made from the headers when `--map` leaves a field out.

use std::fmt;
use std::str::FromStr;

/// The item fields a column can hold (besides `classification:NAME`).
pub const FIELDS: &[&str] = &[
    "id",
    "title",
    "text",
    "sent",
    "tags",
    "persona",
    "source_type",
    "source_originator",
    "source_channel",
];

/// Header spellings each field is guessed from, compared without case,
/// spaces, `_` or `-` (jury's own export headers come first).
const GUESSES: &[(&str, &[&str])] = &[
    ("id", &["id", "itemid", "messageid", "key"]),
    ("title", &["title", "subject", "headline"]),
    ("text", &["text", "body", "summary", "content", "message"]),
    (
        "sent",
        &["sent", "senttime", "date", "time", "timestamp", "received"],
    ),
    ("tags", &["tags", "tag", "categories"]),
    ("persona", &["persona", "owner", "inbox"]),
    ("source_type", &["sourcetype"]),
    (
        "source_originator",
        &["sourceoriginator", "originator", "from", "sender"],
    ),
    ("source_channel", &["sourcechannel", "channel"]),
];

/// The prefix of a classifier output field: `classification:urgency`.
pub const CLASSIFICATION: &str = "classification:";

/// `--map` as given: (jury field, column header) pairs in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsvMap {
    pub pairs: Vec<(String, String)>,
}

impl FromStr for CsvMap {
    type Err = String;

    /// `field=Column,field=Column`; a column header may hold `=` (the first
    /// `=` splits), not `,`.
    fn from_str(s: &str) -> Result<CsvMap, String> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let Some((field, column)) = part.split_once('=') else {
                return Err(format!("'{part}' is not FIELD=COLUMN"));
            };
            let field = field.trim().to_string();
            let column = column.trim().to_string();
            let known = FIELDS.contains(&field.as_str())
                || field
                    .strip_prefix(CLASSIFICATION)
                    .is_some_and(|n| !n.trim().is_empty());
            if !known {
                return Err(format!(
                    "unknown field '{field}' (fields: {}, classification:NAME)",
                    FIELDS.join(", ")
                ));
            }
            if column.is_empty() {
                return Err(format!("'{part}' names no column"));
            }
            if pairs.iter().any(|(f, _)| *f == field) {
                return Err(format!("field '{field}' is mapped twice"));
            }
            pairs.push((field, column));
        }
        if pairs.is_empty() {
            return Err(
                "maps no field (e.g. id=ID,text=Body,classification:urgency=Urgent?)".into(),
            );
        }
        Ok(CsvMap { pairs })
    }
}

/// The mapping an import used for one file: field → column index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// (jury field, column index, guessed rather than given by `--map`).
    pub fields: Vec<(String, usize, bool)>,
}

impl Resolved {
    pub fn column(&self, field: &str) -> Option<usize> {
        self.fields
            .iter()
            .find(|(f, _, _)| f == field)
            .map(|(_, c, _)| *c)
    }

    /// (classification name, column index) in column order.
    pub fn classifications(&self) -> Vec<(String, usize)> {
        self.fields
            .iter()
            .filter_map(|(f, c, _)| f.strip_prefix(CLASSIFICATION).map(|n| (n.to_string(), *c)))
            .collect()
    }
}

/// What one file's mapping was, for the person importing: `id=ID, ...`,
/// the guessed fields and the columns no field used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingNote {
    pub used: Vec<(String, String)>,
    pub guessed: Vec<String>,
    pub unused: Vec<String>,
}

impl fmt::Display for MappingNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let used: Vec<String> = self.used.iter().map(|(k, c)| format!("{k}={c}")).collect();
        write!(f, "--map {}", used.join(","))?;
        if !self.guessed.is_empty() {
            write!(
                f,
                " (guessed from the headers: {})",
                self.guessed.join(", ")
            )?;
        }
        if !self.unused.is_empty() {
            write!(f, "; columns not read: {}", self.unused.join(", "))?;
        }
        Ok(())
    }
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The mapping for `headers`: `--map` first (a column it names must exist:
/// exactly, else without case), then a guess for every field it left out.
/// Errors say which `--map` entry names no column.
pub fn resolve(headers: &[String], given: Option<&CsvMap>) -> Result<Resolved, String> {
    let mut fields: Vec<(String, usize, bool)> = Vec::new();
    let taken = |fields: &Vec<(String, usize, bool)>, c: usize| fields.iter().any(|f| f.1 == c);
    for (field, column) in given.map(|m| m.pairs.as_slice()).unwrap_or(&[]) {
        let exact = headers.iter().position(|h| h == column);
        let loose = || {
            headers
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(column.trim()))
        };
        match exact.or_else(loose) {
            Some(c) => fields.push((field.clone(), c, false)),
            None => {
                return Err(format!(
                    "--map {field}={column}: no column '{column}' (columns: {})",
                    headers.join(", ")
                ));
            }
        }
    }
    for (field, names) in GUESSES {
        if fields.iter().any(|(f, _, _)| f == field) {
            continue;
        }
        let found = headers
            .iter()
            .enumerate()
            .find(|(c, h)| !taken(&fields, *c) && names.contains(&squash(h).as_str()));
        if let Some((c, _)) = found {
            fields.push((field.to_string(), c, true));
        }
    }
    // Columns headed `classification:NAME` (jury's own spelling) are read
    // as that classification unless `--map` gave the name a column.
    for (c, h) in headers.iter().enumerate() {
        if let Some(name) = h.trim().strip_prefix(CLASSIFICATION)
            && !name.trim().is_empty()
            && !taken(&fields, c)
        {
            let field = format!("{CLASSIFICATION}{}", name.trim());
            if !fields.iter().any(|(f, _, _)| *f == field) {
                fields.push((field, c, true));
            }
        }
    }
    Ok(Resolved { fields })
}

/// What to tell the person about `r` over `headers`.
pub fn note(headers: &[String], r: &Resolved) -> MappingNote {
    MappingNote {
        used: r
            .fields
            .iter()
            .map(|(f, c, _)| (f.clone(), headers[*c].clone()))
            .collect(),
        guessed: r
            .fields
            .iter()
            .filter(|(_, _, g)| *g)
            .map(|(f, _, _)| f.clone())
            .collect(),
        unused: headers
            .iter()
            .enumerate()
            .filter(|(c, _)| !r.fields.iter().any(|f| f.1 == *c))
            .map(|(_, h)| h.clone())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn map_parses_fields_and_refuses_unknown_ones() {
        let m: CsvMap = "id=ID, title=Subject,classification:urgency=Urgent?"
            .parse()
            .unwrap();
        assert_eq!(
            m.pairs[2],
            ("classification:urgency".into(), "Urgent?".into())
        );
        assert!(
            "colour=C"
                .parse::<CsvMap>()
                .unwrap_err()
                .contains("unknown field 'colour'")
        );
        assert!(
            "id".parse::<CsvMap>()
                .unwrap_err()
                .contains("is not FIELD=COLUMN")
        );
        assert!(
            "id=A,id=B"
                .parse::<CsvMap>()
                .unwrap_err()
                .contains("mapped twice")
        );
    }

    #[test]
    fn headers_are_guessed_and_the_map_wins() {
        let headers = h(&[
            "Message ID",
            "Subject",
            "Body",
            "Owner",
            "classification:urgency",
            "Notes",
        ]);
        let r = resolve(&headers, None).unwrap();
        assert_eq!(r.column("id"), Some(0));
        assert_eq!(r.column("title"), Some(1));
        assert_eq!(r.column("text"), Some(2));
        assert_eq!(r.column("persona"), Some(3));
        assert_eq!(r.classifications(), vec![("urgency".to_string(), 4)]);
        let n = note(&headers, &r).to_string();
        assert!(n.ends_with("; columns not read: Notes"), "{n}");
        let m: CsvMap = "text=notes".parse().unwrap();
        let r = resolve(&headers, Some(&m)).unwrap();
        assert_eq!(r.column("text"), Some(5));
        let m: CsvMap = "text=Bdy".parse().unwrap();
        assert!(
            resolve(&headers, Some(&m))
                .unwrap_err()
                .starts_with("--map text=Bdy: no column 'Bdy'")
        );
    }
}
