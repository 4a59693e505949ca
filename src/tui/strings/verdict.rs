//! The verdict pane's words about a verdict's source.

/// An imported verdict's source, after its value: ` · their-tool, from theirs.csv`.
pub fn from_source(judge: &str, file: &str) -> String {
    format!(" · {judge}, from {file}")
}
