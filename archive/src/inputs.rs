//! Where archives are read from — files, directories and standard input —
//! bounded like the HTTP endpoints.
//!
//! The service reads at most [`MAX_ARCHIVE_BYTES`] of one archive; so do
//! the commands: a JSON Lines line or a `.json` file that is longer is an
//! error naming the file and the line, found after reading at most that
//! many bytes of it (so `umpire score - < /dev/zero` ends after 32 MiB, in
//! memory bounded by that, instead of growing without end). Lines are found
//! by looking at each byte once, however long a line is.
//!
//! Directories are walked without following symbolic links: a link inside
//! a directory is skipped and reported (so a walk never leaves the directory
//! it was given, and `ln -s . loop` neither loops nor reads a file twice).
//! Only regular files are read: a FIFO, a socket or a device named on the
//! command line is refused — a FIFO would block forever and `/dev/zero`
//! never ends — unless it comes in as standard input (`-`), where a pipe is
//! the point. Found in a walk, such a file is skipped and reported like a
//! link, and so is a directory or archive file the walk cannot open: a walk
//! of `/etc` scores what it can read instead of stopping at the first
//! entry it may not.
//! The file type is checked on the opened descriptor, and a file found in a
//! walk is opened with `O_NOFOLLOW`, so swapping a file for a link between
//! the walk and the read does not lead the reader elsewhere.

use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Take};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest archive accepted, in bytes of JSON: a body of the HTTP archive
/// endpoints, and one line (or one `.json` file) read by the commands.
pub const MAX_ARCHIVE_BYTES: usize = 32 * 1024 * 1024;

/// Bytes read per chunk (rounded to whole lines).
pub const CHUNK_BYTES: usize = 1 << 20;

/// Where archives come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file named on the command line (`.json`: one archive document;
    /// anything else: JSON Lines) or a directory, walked recursively for
    /// `.json`, `.jsonl` and `.ndjson`. A symbolic link named here is
    /// followed: the operator chose it.
    Path(PathBuf),
    /// A file found by walking a directory: read only if it is still a
    /// regular file, never through a symbolic link.
    FoundInDirectory(PathBuf),
    /// Standard input, as JSON Lines; may be anything (a pipe, a device).
    Stdin,
}

impl Input {
    pub fn parse(text: &str) -> Input {
        if text == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(text))
        }
    }

    /// The file's path; `None` for standard input.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::Path(path) | Input::FoundInDirectory(path) => Some(path),
            Input::Stdin => None,
        }
    }
}

/// The files a list of inputs names, and what a walk left out.
#[derive(Debug, Default)]
pub struct ExpandedInputs {
    /// Every file to read, in a stable order (each directory's sorted).
    pub files: Vec<Input>,
    /// What a walk found and left out, in the order found.
    pub skipped: Vec<Skipped>,
}

/// An entry a directory walk left out, and why.
#[derive(Debug)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: SkipReason,
}

/// Why a directory walk left an entry out.
#[derive(Debug)]
pub enum SkipReason {
    /// A symbolic link: never followed inside a directory.
    SymbolicLink,
    /// A FIFO, socket or device with an archive's name (its kind, in words).
    NotARegularFile(&'static str),
    /// A directory or archive file that could not be opened.
    Unreadable(std::io::Error),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::SymbolicLink => f.write_str("a symbolic link (links are not followed)"),
            SkipReason::NotARegularFile(kind) => write!(f, "{kind}, not a regular file"),
            SkipReason::Unreadable(error) => write!(f, "unreadable: {error}"),
        }
    }
}

fn named(path: &Path) -> impl FnOnce(std::io::Error) -> std::io::Error + '_ {
    move |error| std::io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

fn refused(path: &Path, what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{} is {what}, not a regular file: only regular files are read \
             (pass its contents on standard input, `-`, to read it anyway)",
            path.display()
        ),
    )
}

/// What a non-regular, non-directory file type is, in words.
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Expands inputs into the files to read. Every file is opened (and its
/// type checked) before any is read, and an error names the path, so that
/// a mistyped name or a FIFO fails at once rather than after a header or a
/// first batch of rows.
pub fn expand_inputs(inputs: &[Input]) -> std::io::Result<ExpandedInputs> {
    let mut expanded = ExpandedInputs::default();
    for input in inputs {
        match input {
            Input::Stdin => expanded.files.push(Input::Stdin),
            Input::Path(path) | Input::FoundInDirectory(path) => {
                let follow = matches!(input, Input::Path(_));
                let metadata = if follow {
                    std::fs::metadata(path)
                } else {
                    std::fs::symlink_metadata(path)
                }
                .map_err(named(path))?;
                if metadata.is_dir() && follow {
                    let mut files = Vec::new();
                    let mut visited = HashSet::new();
                    walk(path, &mut files, &mut expanded.skipped, &mut visited)?;
                    files.sort();
                    expanded
                        .files
                        .extend(files.into_iter().map(Input::FoundInDirectory));
                } else {
                    open_regular(input)?;
                    expanded.files.push(input.clone());
                }
            }
        }
    }
    Ok(expanded)
}

/// Collects the archive files under `dir`. Links are not followed, so the
/// walk stays inside the directory it was given; `visited` (device and
/// inode of each directory entered) stops a loop that bind mounts could
/// still make. `dir` itself must be readable (it was named, or found and
/// opened by the caller); what is found inside and cannot be opened is
/// skipped.
fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    skipped: &mut Vec<Skipped>,
    visited: &mut HashSet<(u64, u64)>,
) -> std::io::Result<()> {
    let metadata = std::fs::symlink_metadata(dir).map_err(named(dir))?;
    if !visited.insert((metadata.dev(), metadata.ino())) {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).map_err(named(dir))? {
        let entry = entry.map_err(named(dir))?;
        let path = entry.path();
        // The entry's own type: a link is a link, not what it points to.
        let file_type = entry.file_type().map_err(named(&path))?;
        let archive_name = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl" | "ndjson")
        );
        let reason = if file_type.is_symlink() {
            SkipReason::SymbolicLink
        } else if file_type.is_dir() {
            match std::fs::read_dir(&path) {
                Ok(_) => {
                    walk(&path, files, skipped, visited)?;
                    continue;
                }
                Err(error) => SkipReason::Unreadable(error),
            }
        } else if !archive_name {
            // Not an archive by its name: never opened.
            continue;
        } else if file_type.is_file() {
            match open_regular(&Input::FoundInDirectory(path.clone())) {
                Ok(_) => {
                    files.push(path);
                    continue;
                }
                Err(error) => SkipReason::Unreadable(error),
            }
        } else {
            SkipReason::NotARegularFile(kind_of(&file_type))
        };
        skipped.push(Skipped { path, reason });
    }
    Ok(())
}

/// Opens a file input for reading, refusing anything but a regular file.
/// `O_NONBLOCK` keeps the open itself from waiting for a FIFO's writer;
/// the type is then read from the opened descriptor, so what is read is
/// what was checked. A file found in a walk is opened with `O_NOFOLLOW`.
fn open_regular(input: &Input) -> std::io::Result<File> {
    let Some(path) = input.path() else {
        return Err(std::io::Error::other("standard input is not a file"));
    };
    let mut flags = libc::O_NONBLOCK;
    if matches!(input, Input::FoundInDirectory(_)) {
        flags |= libc::O_NOFOLLOW;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|error| {
            if error.raw_os_error() == Some(libc::ELOOP) {
                refused(path, "a symbolic link (found in a directory walk)")
            } else {
                named(path)(error)
            }
        })?;
    let file_type = file.metadata().map_err(named(path))?.file_type();
    if !file_type.is_file() {
        return Err(refused(path, kind_of(&file_type)));
    }
    Ok(file)
}

/// A piece of input: whole lines, or one whole document.
#[derive(Debug)]
pub struct Chunk {
    pub source: Arc<str>,
    /// The line number (1-based) of the chunk's first line.
    pub first_line: u64,
    pub bytes: Vec<u8>,
    /// True for a `.json` file: the chunk is one archive, not lines.
    pub whole_document: bool,
}

/// The error for a line (or a `.json` document) past the limit.
fn too_long(source: &str, line: u64, max_line_bytes: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{source}:{line}: line {line} is longer than {max_line_bytes} bytes, the most one \
             archive may take (as over HTTP); nothing after it was read"
        ),
    )
}

/// Reads one input as chunks, handing each to `emit`. A `.json` file is one
/// document; everything else is split at line ends. No line (and no
/// document) may be longer than `max_line_bytes`: the error names the
/// source and the line, and at most that many bytes of it were held.
pub fn read_chunks(
    input: &Input,
    max_line_bytes: usize,
    emit: &mut dyn FnMut(Chunk) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match input {
        Input::Stdin => read_lines(
            Arc::from("-"),
            std::io::stdin().lock(),
            max_line_bytes,
            emit,
        ),
        Input::Path(path) | Input::FoundInDirectory(path) => {
            let source: Arc<str> = Arc::from(path.display().to_string());
            let file = open_regular(input)?;
            if path.extension().and_then(|e| e.to_str()) == Some("json") {
                let bytes = read_document(&source, file, max_line_bytes)?;
                return emit(Chunk {
                    source,
                    first_line: 1,
                    bytes,
                    whole_document: true,
                });
            }
            read_lines(source, file, max_line_bytes, emit)
        }
    }
}

/// A whole document of at most `max_bytes`.
pub fn read_document(
    source: &str,
    reader: impl Read,
    max_bytes: usize,
) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut limited: Take<_> = reader.take(max_bytes as u64 + 1);
    limited.read_to_end(&mut bytes)?;
    if bytes.len() > max_bytes {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{source}: larger than {max_bytes} bytes, the most one archive may take \
                 (as over HTTP); the rest was not read"
            ),
        ));
    }
    Ok(bytes)
}

/// Splits `reader` into chunks of whole lines (about [`CHUNK_BYTES`] each,
/// more when a line is longer). Each byte is searched for a line end once:
/// the bytes carried over from the last read hold no line end, so only the
/// new ones are searched.
pub fn read_lines(
    source: Arc<str>,
    mut reader: impl Read,
    max_line_bytes: usize,
    emit: &mut dyn FnMut(Chunk) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // The line number of the first line in `buffer`.
    let mut line = 1u64;
    // The unfinished line carried over: it holds no line end.
    let mut buffer: Vec<u8> = Vec::new();
    loop {
        let searched = buffer.len();
        // Never read further into a line than the limit allows.
        let room = CHUNK_BYTES.min(max_line_bytes + 1 - searched);
        // A line longer than a chunk gets room for the longest allowed at
        // once: no copy as it grows, and pages not yet written take no
        // memory, so a long line holds about its own length.
        if buffer.capacity() < searched + room && searched >= CHUNK_BYTES {
            buffer.reserve_exact(max_line_bytes + 1 - buffer.len());
        }
        buffer.resize(searched + room, 0);
        let read = read_full(&mut reader, &mut buffer[searched..])?;
        buffer.truncate(searched + read);
        let mut line_start = 0usize;
        let mut lines = 0u64;
        for end in memchr::memchr_iter(b'\n', &buffer[searched..]) {
            let end = searched + end;
            if end - line_start > max_line_bytes {
                return Err(too_long(&source, line + lines, max_line_bytes));
            }
            line_start = end + 1;
            lines += 1;
        }
        // The unfinished last line, if any.
        if buffer.len() - line_start > max_line_bytes {
            return Err(too_long(&source, line + lines, max_line_bytes));
        }
        if read == 0 {
            if !buffer.is_empty() {
                emit(Chunk {
                    source: source.clone(),
                    first_line: line,
                    bytes: buffer,
                    whole_document: false,
                })?;
            }
            return Ok(());
        }
        if lines > 0 {
            let carry = buffer[line_start..].to_vec();
            buffer.truncate(line_start);
            emit(Chunk {
                source: source.clone(),
                first_line: line,
                bytes: std::mem::replace(&mut buffer, carry),
                whole_document: false,
            })?;
            line += lines;
        }
    }
}

fn read_full(reader: &mut dyn Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Opens an input for reading: standard input as it is, a file only if it
/// is a regular file (as [`read_chunks`] does).
pub fn open(input: &Input) -> std::io::Result<Box<dyn Read + Send>> {
    match input {
        Input::Stdin => Ok(Box::new(std::io::stdin())),
        Input::Path(_) | Input::FoundInDirectory(_) => Ok(Box::new(open_regular(input)?)),
    }
}
