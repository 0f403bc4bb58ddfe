//! One log record, one line, whatever a client sent.
//!
//! Log lines quote things clients send (a game name in an error message, a
//! header in a span): a newline in one would forge a log line of its own, and
//! an escape sequence would drive the reader's terminal. The subscriber hands
//! each formatted record to its writer in one write; [`EscapedLines`] writes
//! it with every control character spelled out (`\n`, `\u{1b}`) except the
//! newline that ends the record. JSON logs escape strings themselves; the
//! text log relies on this, and so is written without colours.

use std::fmt;
use std::io::{self, Write};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FormatFields, MakeWriter};

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

/// Fields formatted as tracing-subscriber's `DefaultFields` formats them
/// without colours (`name=value`, a message bare, one space between), for
/// less: `DefaultFields` paints every name and `=` through `nu_ansi_term`
/// even with colours off, and formats every value, a plain string included,
/// through `fmt`. The request span's fields are formatted when it opens,
/// logged or not, so this is paid by every request. The test below holds the two to the same output.
#[derive(Debug, Default, Clone, Copy)]
pub struct PlainFields;

impl<'writer> FormatFields<'writer> for PlainFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = PlainVisitor {
            writer,
            result: Ok(()),
            empty: true,
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct PlainVisitor<'writer> {
    writer: Writer<'writer>,
    result: fmt::Result,
    empty: bool,
}

impl PlainVisitor<'_> {
    /// Starts a field: a space before any but the first, then its name and
    /// `=` unless it is the message. `None` when the field is not written.
    fn start(&mut self, field: &Field) -> Option<()> {
        if self.result.is_err() {
            return None;
        }
        // As DefaultFields: the pad comes first, even for a skipped field.
        if self.empty {
            self.empty = false;
        } else {
            self.result = self.writer.write_char(' ');
        }
        let name = field.name();
        if name == "message" {
            return self.result.is_ok().then_some(());
        }
        // Log metadata that tracing-log already put in the record's header.
        if name.starts_with("log.") {
            return None;
        }
        let name = name.strip_prefix("r#").unwrap_or(name);
        self.result = self
            .writer
            .write_str(name)
            .and_then(|()| self.writer.write_char('='));
        self.result.is_ok().then_some(())
    }
}

impl Visit for PlainVisitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            return self.record_debug(field, &format_args!("{value}"));
        }
        // `{:?}` of a string leaves printable ASCII other than `"` and `\`
        // as it is: written directly when that is all it holds.
        let plain = value
            .bytes()
            .all(|byte| (b' '..=b'~').contains(&byte) && byte != b'"' && byte != b'\\');
        if !plain {
            return self.record_debug(field, &value);
        }
        if self.start(field).is_some() {
            self.result = self
                .writer
                .write_char('"')
                .and_then(|()| self.writer.write_str(value))
                .and_then(|()| self.writer.write_char('"'));
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.start(field).is_some() {
            self.result = self.writer.write_str(itoa::Buffer::new().format(value));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.start(field).is_some() {
            self.result = self.writer.write_str(itoa::Buffer::new().format(value));
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        match value.source() {
            Some(source) => self.record_debug(
                field,
                &format_args!("{value} {}.sources={}", field.name(), Sources(source)),
            ),
            None => self.record_debug(field, &format_args!("{value}")),
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.start(field).is_some() {
            self.result = write!(self.writer, "{value:?}");
        }
    }
}

/// An error's sources as DefaultFields lists them: `[first, second]`.
struct Sources<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Sources<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = formatter.debug_list();
        let mut next = Some(self.0);
        while let Some(error) = next {
            list.entry(&format_args!("{error}"));
            next = error.source();
        }
        list.finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::format::DefaultFields;

    use super::*;

    /// A writer into a shared buffer.
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

    #[derive(Debug)]
    struct Failure(&'static str, Option<Box<Failure>>);

    impl fmt::Display for Failure {
        fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str(self.0)
        }
    }

    impl std::error::Error for Failure {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|error| error as _)
        }
    }

    /// Spans and events with every kind of field, logged through `fields`.
    fn logged<F>(fields: F) -> String
    where
        F: for<'writer> FormatFields<'writer> + Send + Sync + 'static,
    {
        let captured = Captured::default();
        let buffer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .without_time()
            .with_max_level(tracing::Level::TRACE)
            .fmt_fields(fields)
            .with_writer(move || buffer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let failure = Failure("cannot append", Some(Box::new(Failure("gone", None))));
            let span = tracing::info_span!(
                "request",
                request_id = %uuid::Uuid::nil(),
                method = "POST",
                route = "/v1/games/{id}/actions",
                quoted = "say \"hi\"\\ \n\u{1b}[31m é",
                status = tracing::field::Empty,
                r#type = 3_i64,
                flag = true,
            );
            span.record("status", 201_u64);
            span.record("status", 409_u64);
            let _entered = span.enter();
            tracing::warn!(error = %failure, "lost {} of {}", 1, 2);
            tracing::error!(error = &failure as &dyn std::error::Error, "failed");
            tracing::info!(
                error = &Failure("alone", None) as &dyn std::error::Error,
                empty = "",
                negative = -7_i64
            );
            tracing::info!(message = "a message \"quoted\"", after = ?Some(1.5));
        });
        let bytes = captured.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn plain_fields_write_what_default_fields_write_without_colours() {
        let plain = logged(PlainFields);
        let default = logged(DefaultFields::new());
        assert_eq!(plain.lines().count(), 4, "{plain}");
        assert!(
            plain.contains(r#"route="/v1/games/{id}/actions""#),
            "{plain}"
        );
        assert!(plain.contains("status=201 status=409"), "{plain}");
        assert_eq!(plain, default);
    }
}
