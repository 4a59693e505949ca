//! A person's name (`--who`, `JURY_USER`, the config's `who`, an imported
//! label's `who`): what it may not be.

/// Why `who` cannot name a person, if it cannot: blank (a label must say
/// who gave it), or holding `:`, which separates the parts of the wide
/// export's column names (`label:WHO:SCALE`): a person named
/// `alice:likert` would take alice's Likert column.
pub fn refused_who(who: &str) -> Option<String> {
    if who.trim().is_empty() {
        return Some("a person's name cannot be empty or blank".into());
    }
    who.contains(':').then(|| {
        format!(
            "'{}' cannot name a person: ':' separates the parts of the wide export's column names (label:WHO:SCALE); use another character, e.g. '{}'",
            crate::sanitize::one_line(who, 60),
            crate::sanitize::one_line(&who.replace(':', "-"), 60)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_names_and_colons_are_refused() {
        assert_eq!(refused_who("alice"), None);
        assert_eq!(refused_who("Ana Lima"), None);
        for bad in ["", "  ", "\t", "alice:likert", ":"] {
            assert!(refused_who(bad).is_some(), "{bad:?}");
        }
        assert!(
            refused_who("alice:likert")
                .unwrap()
                .contains("alice-likert")
        );
    }
}
