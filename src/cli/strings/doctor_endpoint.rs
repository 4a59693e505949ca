pub const KEY_SET: &str = "an API key is set (not shown)";
pub const KEY_NEEDED: &str = "no API key: the OpenAI API needs one; set OPENAI_API_KEY";
pub const KEY_NONE_LOCAL: &str = "no API key set (fine for local servers)";
pub const NO_HTTP: &str = "cannot set up HTTP";
pub const IGNORED_TOOL_CHOICE: &str = "JSON in content: the server ignored tool_choice (llama.cpp does with an object tool_choice); use --structured json_schema (jury run --structured auto switches by itself and remembers it)";
pub const NOT_STREAMED: &str = "the answer arrived in one piece: the server or a proxy does not stream; texts will not appear while they arrive";

pub fn bad_client(why: &str) -> String {
    format!("{why}; check OPENAI_BASE_URL")
}
pub fn no_models_url(endpoint: &str) -> String {
    format!("cannot build the models URL from {endpoint}")
}
pub fn unreachable(endpoint: &str, why: &str) -> String {
    format!("cannot reach {endpoint}: {why}; is the server running? check OPENAI_BASE_URL")
}
pub fn lists_model(endpoint: &str, model: &str) -> String {
    format!("{endpoint} is reachable and lists the model '{model}'")
}
/// `some` is the first few of the `count` model ids the server listed.
pub fn model_not_listed(endpoint: &str, model: &str, count: usize, some: &[&str]) -> String {
    format!(
        "{endpoint} is reachable but does not list the model '{model}' ({count} model(s): {}{}); pick one with --model or JURY_MODEL",
        some.join(", "),
        if count > some.len() { ", …" } else { "" }
    )
}
pub fn key_refused(status: u16, why: &str) -> String {
    format!("the key was refused (HTTP {status}): {why}; check OPENAI_API_KEY")
}
pub fn no_model_list(endpoint: &str, status: u16, why: &str) -> String {
    format!(
        "{endpoint} is reachable but GET /models answered HTTP {status} ({why}); some servers have no model list"
    )
}
pub fn no_test_request(why: &str) -> String {
    format!("cannot build the test request: {why}")
}
pub fn own_timeout(timeout_secs: u64, why: &str) -> String {
    format!(
        "no answer within doctor's own {timeout_secs}s timeout ({why}); the server may just be slow (a small local model can take a minute per request): try --timeout-secs 300"
    )
}
pub fn cut_off(why: &str) -> String {
    format!("the server cut the test answer off before it finished: {why}")
}
pub fn judgement_failed(why: &str) -> String {
    format!("a test judgement failed: {why}")
}
pub fn tool_call_works(secs: f64, attempts: u32) -> String {
    format!(
        "a forced tool call works: the server answered with a real tool call ({secs:.1}s, {attempts} attempt(s))"
    )
}
pub fn response_format_works(mode_name: &str, secs: f64, mode: &str) -> String {
    format!(
        "tool calls did not work; {mode_name} does ({secs:.1}s): use --structured {mode} (auto finds it too); vLLM needs --enable-auto-tool-choice for tools, llama.cpp --jinja"
    )
}
pub fn not_an_evaluation(finish: &str, answer: &str) -> String {
    format!("the test answer was not a valid evaluation (finish reason {finish}): {answer}")
}
pub fn streamed(fragments: usize) -> String {
    format!("the answer streamed in {fragments} fragments")
}
pub fn structured_via(mode_name: &str, mode: &str) -> String {
    format!("structured answers via {mode_name} ({mode})")
}
pub fn retried(reason: &str) -> String {
    format!("needed a retry or fallback: {reason}")
}
