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
/// A classification's description: `description:urgency=COLUMN` (a column
/// header), else the text given is the description itself.
pub const DESCRIPTION: &str = "description:";
/// A classification's full list of values: `values:urgency=urgent|not`.
pub const VALUES: &str = "values:";

/// `--map` as given: (jury field, column header) pairs in order, and per
/// classification a description (column or text) and a list of values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsvMap {
    pub pairs: Vec<(String, String)>,
    /// (classification, column header or the description's text).
    pub descriptions: Vec<(String, String)>,
    /// (classification, its values in order).
    pub values: Vec<(String, Vec<String>)>,
}

impl FromStr for CsvMap {
    type Err = String;

    /// `field=Column,field=Column`; a column header may hold `=` (the first
    /// `=` splits), not `,`.
    fn from_str(s: &str) -> Result<CsvMap, String> {
        let mut map = CsvMap::default();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let Some((field, column)) = part.split_once('=') else {
                return Err(format!("'{part}' is not FIELD=COLUMN"));
            };
            let field = field.trim().to_string();
            let column = column.trim().to_string();
            if let Some(name) = of_classification(&field, DESCRIPTION)? {
                if column.is_empty() {
                    return Err(format!("'{part}' gives no description"));
                }
                if map.descriptions.iter().any(|(n, _)| *n == name) {
                    return Err(format!("field '{field}' is mapped twice"));
                }
                map.descriptions.push((name, column));
                continue;
            }
            if let Some(name) = of_classification(&field, VALUES)? {
                let values: Vec<String> = column
                    .split('|')
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
                    .collect();
                if values.is_empty() {
                    return Err(format!("'{part}' lists no value (values:NAME=a|b|c)"));
                }
                if let Some(twice) = values
                    .iter()
                    .enumerate()
                    .find(|(i, v)| values[..*i].contains(v))
                {
                    return Err(format!("'{part}' lists '{}' twice", twice.1));
                }
                if map.values.iter().any(|(n, _)| *n == name) {
                    return Err(format!("field '{field}' is mapped twice"));
                }
                map.values.push((name, values));
                continue;
            }
            let pairs = &mut map.pairs;
            let known = FIELDS.contains(&field.as_str())
                || field
                    .strip_prefix(CLASSIFICATION)
                    .is_some_and(|n| !n.trim().is_empty());
            if !known {
                return Err(format!(
                    "unknown field '{field}' (fields: {}, classification:NAME, description:NAME, values:NAME)",
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
        if map.pairs.is_empty() && map.descriptions.is_empty() && map.values.is_empty() {
            return Err(
                "maps no field (e.g. id=ID,text=Body,classification:urgency=Urgent?)".into(),
            );
        }
        Ok(map)
    }
}

/// `NAME` of `PREFIXNAME` (`values:urgency`); an error when the name is empty.
fn of_classification(field: &str, prefix: &str) -> Result<Option<String>, String> {
    match field.strip_prefix(prefix) {
        None => Ok(None),
        Some(n) if n.trim().is_empty() => Err(format!("'{field}' names no classification")),
        Some(n) => Ok(Some(n.trim().to_string())),
    }
}

/// Where a classification's description comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Description {
    /// A column, read per row.
    Column(usize),
    /// The same text for every row.
    Text(String),
}

/// The mapping an import used for one file: field → column index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// (jury field, column index, guessed rather than given by `--map`).
    pub fields: Vec<(String, usize, bool)>,
    /// Per classification given one: its description.
    pub descriptions: Vec<(String, Description)>,
    /// Per classification given one: its full list of values.
    pub values: Vec<(String, Vec<String>)>,
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

    pub fn description(&self, class: &str) -> Option<&Description> {
        self.descriptions
            .iter()
            .find(|(n, _)| n == class)
            .map(|(_, d)| d)
    }

    /// The values `--map values:NAME=…` gave `class`, if it gave any.
    pub fn values_of(&self, class: &str) -> Option<&[String]> {
        self.values
            .iter()
            .find(|(n, _)| n == class)
            .map(|(_, v)| v.as_slice())
    }
}

/// What one file's mapping was, for the person importing: `id=ID, ...`,
/// the guessed fields and the columns no field used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingNote {
    pub used: Vec<(String, String)>,
    pub guessed: Vec<String>,
    pub unused: Vec<String>,
    /// Per classification, the values it has (given by `--map values:`, or
    /// found in its column), in order.
    pub values: Vec<(String, Vec<String>)>,
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
        for (name, values) in &self.values {
            write!(f, "; {name} values: {}", values.join(", "))?;
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
    // Columns and field names taken so far, as sets: looking back over
    // `fields` for every column was quadratic in a wide file.
    let mut taken = vec![false; headers.len()];
    for (field, column) in given.map(|m| m.pairs.as_slice()).unwrap_or(&[]) {
        let exact = headers.iter().position(|h| h == column);
        let loose = || {
            headers
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(column.trim()))
        };
        match exact.or_else(loose) {
            Some(c) => {
                taken[c] = true;
                fields.push((field.clone(), c, false));
            }
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
            .find(|(c, h)| !taken[*c] && names.contains(&squash(h).as_str()));
        if let Some((c, _)) = found {
            taken[c] = true;
            fields.push((field.to_string(), c, true));
        }
    }
    let mut named: std::collections::HashSet<String> =
        fields.iter().map(|(f, _, _)| f.clone()).collect();
    // Columns headed `classification:NAME` (jury's own spelling) are read
    // as that classification unless `--map` gave the name a column.
    for (c, h) in headers.iter().enumerate() {
        if let Some(name) = h.trim().strip_prefix(CLASSIFICATION)
            && !name.trim().is_empty()
            && !taken[c]
        {
            let field = format!("{CLASSIFICATION}{}", name.trim());
            if named.insert(field.clone()) {
                fields.push((field, c, true));
            }
        }
    }
    let mut resolved = Resolved {
        fields,
        ..Resolved::default()
    };
    let classes: std::collections::HashSet<String> = resolved
        .classifications()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let mapped = |name: &str, field: &str| -> Result<(), String> {
        if classes.contains(name) {
            return Ok(());
        }
        Err(format!(
            "--map {field}{name}: no classification '{name}' is read (map its column with classification:{name}=COLUMN)"
        ))
    };
    for (name, given) in given.map(|m| m.descriptions.as_slice()).unwrap_or(&[]) {
        mapped(name, DESCRIPTION)?;
        let column = headers.iter().position(|h| h == given).or_else(|| {
            headers
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(given.trim()))
        });
        let d = match column {
            Some(c) => Description::Column(c),
            None => Description::Text(given.clone()),
        };
        resolved.descriptions.push((name.clone(), d));
    }
    for (name, values) in given.map(|m| m.values.as_slice()).unwrap_or(&[]) {
        mapped(name, VALUES)?;
        resolved.values.push((name.clone(), values.clone()));
    }
    Ok(resolved)
}

/// What to tell the person about `r` over `headers`, with the values each
/// classification has (`values`, in the order of [`Resolved::classifications`]).
pub fn note(headers: &[String], r: &Resolved, values: &[Vec<String>]) -> MappingNote {
    let mut used: Vec<(String, String)> = r
        .fields
        .iter()
        .map(|(f, c, _)| (f.clone(), headers[*c].clone()))
        .collect();
    used.extend(r.descriptions.iter().map(|(n, d)| {
        let from = match d {
            Description::Column(c) => headers[*c].clone(),
            Description::Text(t) => t.clone(),
        };
        (format!("{DESCRIPTION}{n}"), from)
    }));
    used.extend(
        r.values
            .iter()
            .map(|(n, v)| (format!("{VALUES}{n}"), v.join("|"))),
    );
    MappingNote {
        used,
        values: r
            .classifications()
            .into_iter()
            .map(|(n, _)| n)
            .zip(values.iter().cloned())
            .collect(),
        guessed: r
            .fields
            .iter()
            .filter(|(_, _, g)| *g)
            .map(|(f, _, _)| f.clone())
            .collect(),
        unused: {
            // Marked once, not looked up per column (quadratic when wide).
            let mut read = vec![false; headers.len()];
            let columns = r.fields.iter().map(|f| f.1);
            let described = r.descriptions.iter().filter_map(|(_, d)| match d {
                Description::Column(c) => Some(*c),
                Description::Text(_) => None,
            });
            for c in columns.chain(described) {
                read[c] = true;
            }
            headers
                .iter()
                .zip(read)
                .filter(|(_, read)| !read)
                .map(|(h, _)| h.clone())
                .collect()
        },
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
    fn descriptions_and_value_lists_parse_per_classification() {
        let m: CsvMap = "classification:u=U,description:u=Why,values:u=urgent | not"
            .parse()
            .unwrap();
        assert_eq!(m.descriptions, vec![("u".to_string(), "Why".to_string())]);
        assert_eq!(
            m.values,
            vec![(
                "u".to_string(),
                vec!["urgent".to_string(), "not".to_string()]
            )]
        );
        let err = |s: &str| s.parse::<CsvMap>().unwrap_err();
        assert!(
            err("values:u=").contains("lists no value"),
            "{}",
            err("values:u=")
        );
        assert!(err("values:u=a|b|a").contains("lists 'a' twice"));
        assert!(err("values:=a").contains("names no classification"));
        assert!(err("description:u=A,description:u=B").contains("mapped twice"));
        // A description that names a column is read from it; otherwise it is
        // the text.
        let headers = h(&["ID", "U", "Why"]);
        let r = resolve(&headers, Some(&m)).unwrap();
        assert_eq!(r.description("u"), Some(&Description::Column(2)));
        let m: CsvMap = "classification:u=U,description:u=Is it urgent?"
            .parse()
            .unwrap();
        let r = resolve(&headers, Some(&m)).unwrap();
        assert_eq!(
            r.description("u"),
            Some(&Description::Text("Is it urgent?".into()))
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
        let n = note(&headers, &r, &[]).to_string();
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
