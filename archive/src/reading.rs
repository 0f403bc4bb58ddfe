//! Where each archive is in what was read: a body or a file held whole (one
//! archive, possibly pretty-printed; a JSON array of archives; or JSON
//! Lines), or a chunk of an input read a piece at a time (one `.json`
//! document, or whole lines). The HTTP endpoints and the commands find
//! archives here, and only here; what each then does with an archive's text
//! (score it, import it, audit it) is theirs.
//!
//! An array is walked element by element, never collected: memory stays that
//! of the text, however many archives it holds.

use std::io::Read;
use std::ops::Range;
use std::sync::mpsc;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::inputs::{self, read_chunks, read_lines, Chunk, Input, MAX_ARCHIVE_BYTES};

/// Where an archive stood in what was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The index in a JSON array.
    Element(usize),
    /// The line (from 1) of JSON Lines, or line 1 for a single document.
    Line(u64),
}

impl Place {
    /// `source[index]` or `source:line`: what an answer's `source` says.
    pub fn label(self, source: &str) -> String {
        match self {
            Place::Element(index) => format!("{source}[{index}]"),
            Place::Line(line) => format!("{source}:{line}"),
        }
    }
}

/// Why a text held whole was not read to its end.
#[derive(Debug)]
pub enum ReadStop<E> {
    /// The bytes are not UTF-8.
    NotUtf8,
    /// It starts as an array but is not a well-formed one.
    Malformed(serde_json::Error),
    /// The caller's `each` stopped the walk.
    Stopped(E),
}

/// Calls `each` with every archive's text in `bytes`, held whole, and its
/// place, one at a time: one JSON document (an archive, possibly spread over
/// lines), a JSON array of them (walked element by element), or JSON Lines
/// (blank lines skipped). A text is only found here, not parsed: a line
/// that is not an archive is still handed over, for the caller to refuse.
pub fn each_archive_text<'a, E>(
    bytes: &'a [u8],
    mut each: impl FnMut(&'a str, Place) -> Result<(), E>,
) -> Result<(), ReadStop<E>> {
    let text = std::str::from_utf8(bytes).map_err(|_| ReadStop::NotUtf8)?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let mut stopped = None;
        let mut deserializer = serde_json::Deserializer::from_str(trimmed);
        let walked = EachElement {
            each: &mut each,
            stopped: &mut stopped,
        }
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
        if let Some(stop) = stopped {
            return Err(ReadStop::Stopped(stop));
        }
        return walked.map_err(ReadStop::Malformed);
    }
    // One document (possibly spanning lines), or JSON Lines.
    if let Ok(raw) = serde_json::from_str::<&RawValue>(trimmed) {
        return each(raw.get(), Place::Line(1)).map_err(ReadStop::Stopped);
    }
    for (index, line) in text.split('\n').enumerate() {
        if !line.trim().is_empty() {
            each(line, Place::Line(index as u64 + 1)).map_err(ReadStop::Stopped)?;
        }
    }
    Ok(())
}

/// Where `part`, a slice of `whole` (as [`each_archive_text`] hands out),
/// lies in it: for holding an archive's place in a body shared between
/// threads without copying its text.
pub fn span_in(whole: &str, part: &str) -> Range<usize> {
    let start = (part.as_ptr() as usize)
        .checked_sub(whole.as_ptr() as usize)
        .filter(|start| start + part.len() <= whole.len())
        .expect("a slice of the text it was found in");
    start..start + part.len()
}

/// Walks a JSON array, handing each element's text to `each` as it is read.
struct EachElement<'f, F, E> {
    each: &'f mut F,
    /// Set when `each` stopped the walk (the walk itself then fails too).
    stopped: &'f mut Option<E>,
}

impl<'de, F, E> DeserializeSeed<'de> for EachElement<'_, F, E>
where
    F: FnMut(&'de str, Place) -> Result<(), E>,
{
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, F, E> Visitor<'de> for EachElement<'_, F, E>
where
    F: FnMut(&'de str, Place) -> Result<(), E>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("an array of archives")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut elements: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(raw) = elements.next_element::<&'de RawValue>()? {
            if let Err(stop) = (self.each)(raw.get(), Place::Element(index)) {
                *self.stopped = Some(stop);
                return Err(de::Error::custom("stopped"));
            }
            index += 1;
        }
        Ok(())
    }
}

/// Calls `each` with every archive's text in a chunk and its line: the
/// whole chunk for a `.json` document, else each line that is not blank.
pub fn each_archive_in_chunk<E>(
    chunk: &Chunk,
    text: &str,
    mut each: impl FnMut(&str, u64) -> Result<(), E>,
) -> Result<(), E> {
    if chunk.whole_document {
        return each(text, chunk.first_line);
    }
    for (offset, line) in text.split('\n').enumerate() {
        if !line.trim().is_empty() {
            each(line, chunk.first_line + offset as u64)?;
        }
    }
    Ok(())
}

/// How many archives a file holds, as far as is known when each is handed
/// over: all of a file read whole, none of one read a line at a time.
pub type ArchivesInFile = Option<usize>;

/// The archives of one file, each handed to `each` with its place and how
/// many the file holds. A file of at most one archive's size
/// ([`MAX_ARCHIVE_BYTES`]) is read whole, as a body is
/// ([`each_archive_text`]); a longer one can only be JSON Lines, and is read
/// a line at a time (each at most one archive's size), so that its size
/// does not matter. A read that fails, or a file whose text is not UTF-8 or
/// not a well-formed array, is an error naming the file.
pub fn each_archive_in_file<E: From<std::io::Error>>(
    input: &Input,
    mut each: impl FnMut(&str, Place, ArchivesInFile) -> Result<(), E>,
) -> Result<(), E> {
    let source = match input.path() {
        Some(path) => path.display().to_string(),
        None => "-".to_string(),
    };
    let failed = |error: std::io::Error| {
        E::from(std::io::Error::new(
            error.kind(),
            format!("reading {source}: {error}"),
        ))
    };
    let mut reader = inputs::open(input)?;
    let mut head = Vec::new();
    (&mut reader)
        .take(MAX_ARCHIVE_BYTES as u64 + 1)
        .read_to_end(&mut head)
        .map_err(failed)?;
    if head.len() <= MAX_ARCHIVE_BYTES {
        let unreadable = |what: String| {
            E::from(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{source}: {what}"),
            ))
        };
        let mut count = 0;
        each_archive_text(&head, |_, _| {
            count += 1;
            Ok::<_, E>(())
        })
        .map_err(|stop| match stop {
            ReadStop::NotUtf8 => unreadable("not UTF-8".into()),
            ReadStop::Malformed(error) => unreadable(format!("not an array of archives: {error}")),
            ReadStop::Stopped(error) => error,
        })?;
        return each_archive_text(&head, |text, place| each(text, place, Some(count))).map_err(
            |stop| match stop {
                ReadStop::Stopped(error) => error,
                // The same text was read to its end just now.
                ReadStop::NotUtf8 | ReadStop::Malformed(_) => unreadable("changed".into()),
            },
        );
    }
    let mut stopped = None;
    let read = read_lines(
        source.clone().into(),
        std::io::Cursor::new(head).chain(reader),
        MAX_ARCHIVE_BYTES,
        &mut |chunk| {
            let text = String::from_utf8_lossy(&chunk.bytes);
            each_archive_in_chunk(&chunk, &text, |line, number| {
                each(line, Place::Line(number), None)
            })
            .map_err(|error| {
                stopped = Some(error);
                std::io::Error::other("stopped")
            })
        },
    );
    match stopped {
        Some(error) => Err(error),
        None => read.map_err(E::from),
    }
}

/// One archive's text and where it was read (`path:line`, `body:line`,
/// `body[index]`): what the import of many archives takes.
#[derive(Debug, Clone)]
pub struct ArchiveText<T> {
    pub source: String,
    pub text: T,
}

/// The chunks of `files` (no line longer than `max_archive_bytes`), read in
/// order on a thread of its own, at most `read_ahead` ahead of the reader of
/// the iterator; each passed to `check`
/// first, whose error ends the reading as a failure to read does: the
/// iterator's last item is then that error. Dropping the iterator stops the
/// reading.
pub fn chunks_of(
    files: Vec<Input>,
    max_archive_bytes: usize,
    read_ahead: usize,
    check: fn(&Chunk) -> std::io::Result<()>,
) -> impl Iterator<Item = std::io::Result<Chunk>> + Send {
    let (sender, receiver) = mpsc::sync_channel(read_ahead.max(1));
    std::thread::spawn(move || {
        for input in &files {
            let outcome = read_chunks(input, max_archive_bytes, &mut |chunk| {
                check(&chunk)?;
                sender
                    .send(Ok(chunk))
                    .map_err(|_| std::io::Error::other("the reader of the archives left"))
            });
            if let Err(error) = outcome {
                let _ = sender.send(Err(error));
                return;
            }
        }
    });
    receiver.into_iter()
}

/// Every archive of `files` as an owned text with its source (`path:line`),
/// read a chunk at a time ([`chunks_of`]): memory holds `read_ahead` chunks
/// and one chunk's texts, whatever the size of the files.
pub fn archive_texts_of(
    files: Vec<Input>,
    read_ahead: usize,
) -> impl Iterator<Item = std::io::Result<ArchiveText<String>>> + Send {
    chunks_of(files, MAX_ARCHIVE_BYTES, read_ahead, |_| Ok(())).flat_map(|chunk| {
        let mut texts = Vec::new();
        match chunk {
            Err(error) => texts.push(Err(error)),
            Ok(chunk) => {
                let text = String::from_utf8_lossy(&chunk.bytes);
                let found = each_archive_in_chunk(&chunk, &text, |line, number| {
                    texts.push(Ok(ArchiveText {
                        source: Place::Line(number).label(&chunk.source),
                        text: line.to_string(),
                    }));
                    Ok::<_, std::convert::Infallible>(())
                });
                let Ok(()) = found;
            }
        }
        texts
    })
}
