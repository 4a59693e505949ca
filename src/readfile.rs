//! Reading a file jury was pointed at (config, prices, themes, claims,
//! prompts, import inputs): only a regular file is read. A FIFO would block
//! the read until some writer appears, which may be never; a device reads as
//! nothing (`/dev/null`) or without end (`/dev/zero`). Both are refused with
//! what the path is.

use std::io::Read;
use std::path::Path;

/// What a non-regular file is, in words.
pub fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The error for a path that is `kind`.
fn not_regular(kind: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {kind}, not a regular file"),
    )
}

/// Opens `path` for reading if it is a regular file. The open itself does
/// not block on a FIFO (non-blocking), and the type is checked on the open
/// file, so a path swapped meanwhile cannot slip through.
pub fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    let f = o.open(path)?;
    let t = f.metadata()?.file_type();
    if !t.is_file() {
        return Err(not_regular(kind_of(t)));
    }
    Ok(f)
}

/// The text of a regular file (UTF-8).
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    let mut f = open(path)?;
    let mut text = String::new();
    f.read_to_string(&mut text)?;
    Ok(text)
}
