//! What jury guarantees when the world misbehaves: servers that fail the way
//! real ones do, an API key that never leaks, bad input, `jury doctor`, and a
//! store that never loses or silently rewrites what a person saved.

#[path = "../common/mod.rs"]
mod common;

mod api_key;
mod batch_waits;
mod doctor;
mod input;
mod misbehaving_servers;
mod provider;
mod safe_data_import;
mod safe_data_store;
mod several_servers;
mod special_files;
mod store;
mod stream_bounds;
mod url_credentials;
