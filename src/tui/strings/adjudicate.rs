//! Adjudication (`=`): the status messages.

pub const NO_ROW: &str = "no classification row to adjudicate";
pub const LEFT: &str = "not adjudicated";
pub const NOTHING_TO_SETTLE: &str = "nothing to adjudicate here: fewer than two people labelled this row, or they agree (a Likert 4 and 5 agree)";

pub fn armed(row: &str, keys: &str) -> String {
    format!("adjudicate {row}: press the reference label ({keys}); Esc leaves")
}
pub fn given(row: &str, value: &str, undo_key: &str) -> String {
    format!("adjudicated {row} as {value}: the reference label ({undo_key} undoes)")
}
pub fn undone(row: &str, value: &str, back: Option<&str>) -> String {
    match back {
        Some(b) => format!("undid the adjudication {value} of {row}: back to {b}"),
        None => format!("undid the adjudication {value} of {row}: none stands"),
    }
}
pub fn not_saved(why: &str) -> String {
    format!("the adjudication was NOT saved: {why}")
}
/// On a row: the reference label and who gave it.
pub fn reference(value: &str, who: &str) -> String {
    format!("  ⚖ ref {value} ({who})")
}
/// On a row people disagree on that no one adjudicated.
pub const DISPUTED: &str = "  ⚖ to adjudicate";
