use std::io::Write;

fn table(text: &str) -> Result<std::collections::HashMap<String, Vec<f64>>, super::ConfigError> {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    super::load_prices_from(f.path())
}

#[test]
fn a_good_table_reads_integers_as_dollars() {
    let t = table("m = [1, 2.5]\n\"gpt-4.1\" = [2.0, 8.0, 0.5]\n").unwrap();
    assert_eq!(t["m"], vec![1.0, 2.5]);
    assert_eq!(t["gpt-4.1"], vec![2.0, 8.0, 0.5]);
}

#[test]
fn a_bad_entry_names_the_file_and_the_key() {
    for (text, key) in [
        ("ok = [1, 2]\nbad-model = [1]\n", "bad-model"),
        ("neg = [1, -2]\n", "neg"),
        ("word = \"cheap\"\n", "word"),
        ("gpt-4.1 = [2, 8]\n", "gpt-4"),
    ] {
        let e = table(text).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains(".tmp") && m.contains(&format!("{key}: expected [input, output]")),
            "{m}"
        );
    }
    let e = table("gpt-4.1 = [2, 8]\n").unwrap_err().to_string();
    assert!(e.contains("must be quoted"), "{e}");
    let e = table("m = [1, 2\n").unwrap_err().to_string();
    assert!(e.contains(": line "), "{e}");
}
