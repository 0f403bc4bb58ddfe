//! One log record, one line, whatever a client sent.
//!
//! Log lines quote things clients send (a game name in an error message, a
//! header in a span): a newline in one would forge a log line of its own, and
//! an escape sequence would drive the reader's terminal. The subscriber hands
//! each formatted record to its writer in one write; [`EscapedLines`] writes
//! it with every control character spelled out (`\n`, `\u{1b}`) except the
//! newline that ends the record. JSON logs escape strings themselves; the
//! text log relies on this, and so is written without colours.

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

/// A `MakeWriter` whose writers escape control characters inside records.
#[derive(Clone, Debug)]
pub struct EscapedLines<M>(pub M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for EscapedLines<M> {
    type Writer = Escaping<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        Escaping(self.0.make_writer())
    }
}

/// Writes each buffer it is given as one line.
pub struct Escaping<W>(W);

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(bytes);
        let (record, ends_line) = match text.strip_suffix('\n') {
            Some(record) => (record, true),
            None => (text.as_ref(), false),
        };
        let mut line = String::with_capacity(record.len() + 1);
        for c in record.chars() {
            match c {
                '\n' => line.push_str("\\n"),
                '\r' => line.push_str("\\r"),
                '\t' => line.push('\t'),
                c if c.is_control() => line.push_str(&c.escape_unicode().to_string()),
                c => line.push(c),
            }
        }
        if ends_line {
            line.push('\n');
        }
        self.0.write_all(line.as_bytes())?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
