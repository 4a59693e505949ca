//! The AwAg prompt elements (S8.3): one file per element and the result
//! schema of each mode, with the default texts compiled in.

/// The AwAg prompt elements (S8.3), by file name.
pub const ELEMENTS: &[&str] = &[
    "system_common.txt",
    "system_extra_mode1.txt",
    "system_extra_mode23.txt",
    "user_likert.txt",
    "user_prefix_mode1.txt",
    "user_prefix_mode2.txt",
    "user_prefix_mode3.txt",
    "user_example_mode2.txt",
    "user_example_mode3.txt",
    "schema_result_mode1.json",
    "schema_result_mode2.json",
    "schema_result_mode3.json",
];

pub(super) const EMBEDDED: &[(&str, &str)] = &[
    (
        "system_common.txt",
        include_str!("../../prompts/awag/system_common.txt"),
    ),
    (
        "system_extra_mode1.txt",
        include_str!("../../prompts/awag/system_extra_mode1.txt"),
    ),
    (
        "system_extra_mode23.txt",
        include_str!("../../prompts/awag/system_extra_mode23.txt"),
    ),
    (
        "user_likert.txt",
        include_str!("../../prompts/awag/user_likert.txt"),
    ),
    (
        "user_prefix_mode1.txt",
        include_str!("../../prompts/awag/user_prefix_mode1.txt"),
    ),
    (
        "user_prefix_mode2.txt",
        include_str!("../../prompts/awag/user_prefix_mode2.txt"),
    ),
    (
        "user_prefix_mode3.txt",
        include_str!("../../prompts/awag/user_prefix_mode3.txt"),
    ),
    (
        "user_example_mode2.txt",
        include_str!("../../prompts/awag/user_example_mode2.txt"),
    ),
    (
        "user_example_mode3.txt",
        include_str!("../../prompts/awag/user_example_mode3.txt"),
    ),
    (
        "schema_result_mode1.json",
        include_str!("../../prompts/awag/schema_result_mode1.json"),
    ),
    (
        "schema_result_mode2.json",
        include_str!("../../prompts/awag/schema_result_mode2.json"),
    ),
    (
        "schema_result_mode3.json",
        include_str!("../../prompts/awag/schema_result_mode3.json"),
    ),
];
