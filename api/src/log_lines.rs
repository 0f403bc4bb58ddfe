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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_client_string_with_newlines_and_escapes_stays_on_its_records_line() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(EscapedLines(move || writer.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let game = "chess\n2026-11-23T00:00:00Z  INFO umpire: admin logged in\u{1b}[2J";
            tracing::warn!(game, "There is no game called `{game}`.");
            tracing::info!("next record");
        });
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 2, "{log:?}");
        assert!(lines[0].contains("chess\\n2026"), "{}", lines[0]);
        assert!(!log.contains('\u{1b}'), "{log:?}");
        assert!(lines[0].contains("\\u{1b}[2J"), "{}", lines[0]);
        assert!(lines[1].contains("next record"));
    }
}
