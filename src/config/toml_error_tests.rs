#[test]
fn errors_name_line_and_column_and_hide_the_values() {
    let text = "model = \"m\"\ntemperature = \"sk-CANARY-1\"\n";
    let e = toml::from_str::<super::ConfigFile>(text).unwrap_err();
    let m = super::toml_error(text, &e);
    assert!(m.starts_with("line 2, column 15: "), "{m}");
    assert!(!m.contains("CANARY") && m.contains("expected f64"), "{m}");
    let text = "\n  sk-CANARY-2 = 1\n";
    let e = toml::from_str::<super::ConfigFile>(text).unwrap_err();
    let m = super::toml_error(text, &e);
    assert!(
        m.starts_with("line 2, column 3: ") && !m.contains("CANARY"),
        "{m}"
    );
    assert!(m.contains("expected one of `base_url`"), "{m}");
}

#[test]
fn a_config_file_error_names_a_known_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "model = \"m\"\nidle_timeout = \"soon\"\n").unwrap();
    let m = super::load_file(&path).unwrap_err().to_string();
    assert!(m.starts_with(&path.display().to_string()), "{m}");
    assert!(
        m.contains("line 2, column 16: idle_timeout: invalid type"),
        "{m}"
    );
    assert!(!m.contains("soon"), "{m}");
}
