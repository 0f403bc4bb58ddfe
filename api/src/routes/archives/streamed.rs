//! Streamed answers: a `200` whose body is written as it is made (an audit
//! entry by entry, an export's rejections page by page, score rows, import
//! lines), by a blocking thread or an async task, in chunks handed to the
//! response through a bounded channel, so that a writer faster than its
//! client waits instead of piling the answer up in memory, and a client that
//! stops reading for [`READER_STALL`] has its answer cut.
//!
//! The channel is flume's: its blocking send gives up after a deadline, so a
//! blocking writer waits for its client without entering the async runtime.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Poll;

use actix_web::http::header::ContentType;
use actix_web::web::Bytes;
use actix_web::HttpResponse;
use futures_util::StreamExt;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use umpire_storage::StoreError;
use uuid::Uuid;

use super::READER_STALL;

/// A streamed answer is sent in chunks of about this size.
const CHUNK_BYTES: usize = 64 * 1024;

/// Chunks written but not yet sent. With [`CHUNK_BYTES`], what a slow
/// client can make one streamed answer hold.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Why a streamed answer ended before its end.
#[derive(Debug, thiserror::Error)]
pub(super) enum StreamStop {
    #[error("the client went away")]
    ClientGone,
    #[error("the client stopped reading the answer for {} s", READER_STALL.as_secs())]
    ReaderStalled,
    #[error("reading the game failed: {0}")]
    Store(#[from] StoreError),
    #[error("the answer could not be encoded: {0}")]
    Encoding(#[from] serde_json::Error),
    #[error("the stored game cannot be audited: {0}")]
    Unauditable(umpire_archive::Divergence),
    #[error("{0}")]
    Service(#[from] umpire_service::ServiceError),
}

/// The writing end of a streamed answer: bytes are gathered into chunks of
/// [`CHUNK_BYTES`] and handed to the response through a channel of
/// [`CHUNKS_IN_FLIGHT`].
pub(super) struct JsonBody {
    chunks: flume::Sender<Bytes>,
    buffer: Vec<u8>,
    /// Set once the answer is whole. A body dropped without it (cut, or
    /// its writer panicked) ends the response with an error rather than
    /// with the end of the body: the status and part of the body are already
    /// sent, so the client must see the connection closed on an unfinished
    /// chunked body (and invalid JSON), never a complete-looking document.
    whole: Arc<AtomicBool>,
}

/// A streamed `200 application/json` answer and the body to write it with.
pub(super) fn streamed_json() -> (JsonBody, HttpResponse) {
    streamed(ContentType::json())
}

/// A streamed `200` answer of `content_type` and the body to write it with.
pub(super) fn streamed(content_type: ContentType) -> (JsonBody, HttpResponse) {
    let (chunks, receiver) = flume::bounded(CHUNKS_IN_FLIGHT);
    let whole = Arc::new(AtomicBool::new(false));
    let mut ended = false;
    let mut received = receiver.into_stream();
    let stream = futures_util::stream::poll_fn({
        let whole = whole.clone();
        move |context| match received.poll_next_unpin(context) {
            Poll::Ready(None) if !ended && !whole.load(Ordering::SeqCst) => {
                ended = true;
                Poll::Ready(Some(Err(std::io::Error::other(
                    "the answer was cut short; the cause is in the service's log",
                ))))
            }
            polled => polled.map(|chunk| chunk.map(Ok)),
        }
    });
    let response = HttpResponse::Ok()
        .content_type(content_type)
        .streaming(stream);
    let body = JsonBody {
        chunks,
        buffer: Vec::with_capacity(CHUNK_BYTES),
        whole,
    };
    (body, response)
}

impl JsonBody {
    /// Appends `bytes`, sending a full chunk from a blocking thread.
    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<(), StreamStop> {
        self.buffer.extend_from_slice(bytes);
        self.send_when_full()
    }

    /// `value` as an element of an array being written: a comma before all
    /// but the first.
    pub(super) fn write_element(
        &mut self,
        first: &mut bool,
        value: &impl Serialize,
    ) -> Result<(), StreamStop> {
        if !std::mem::take(first) {
            self.buffer.push(b',');
        }
        serde_json::to_writer(&mut self.buffer, value)?;
        self.send_when_full()
    }

    /// `{` and the fields of `object`, left open for more.
    pub(super) fn write_fields_opening(
        &mut self,
        object: &impl Serialize,
    ) -> Result<(), StreamStop> {
        let text = serde_json::to_vec(object)?;
        self.write(text.strip_suffix(b"}").expect("an object ends with }"))
    }

    /// `{` and every field of `object` but `left_out`, left open for more:
    /// so that a field can be written after the others, streamed, whatever
    /// the order `object` serialises its fields in.
    pub(super) fn write_fields_except(
        &mut self,
        object: &impl Serialize,
        left_out: &str,
    ) -> Result<(), StreamStop> {
        let text = serde_json::to_vec(object)?;
        let fields: Vec<(&str, &RawValue)> = serde_json::from_slice::<Fields<'_>>(&text)?.0;
        self.buffer.push(b'{');
        let mut first = true;
        for (name, value) in fields.into_iter().filter(|(name, _)| *name != left_out) {
            if !std::mem::take(&mut first) {
                self.buffer.push(b',');
            }
            serde_json::to_writer(&mut self.buffer, name)?;
            self.buffer.push(b':');
            self.buffer.extend_from_slice(value.get().as_bytes());
            self.send_when_full()?;
        }
        Ok(())
    }

    /// The fields of `object` and `}`, closing an object opened before.
    pub(super) fn write_fields_closing(
        &mut self,
        object: &impl Serialize,
    ) -> Result<(), StreamStop> {
        let text = serde_json::to_vec(object)?;
        self.write(text.strip_prefix(b"{").expect("an object starts with {"))
    }

    /// `value` as one line of JSON Lines, from an async task.
    pub(super) async fn write_line(&mut self, value: &impl Serialize) -> Result<(), StreamStop> {
        serde_json::to_writer(&mut self.buffer, value)?;
        self.buffer.push(b'\n');
        if self.buffer.len() >= CHUNK_BYTES {
            let chunk = self.take_chunk();
            self.send_async(chunk).await?;
        }
        Ok(())
    }

    /// Sends what is left and marks the answer whole, from an async task.
    pub(super) async fn finish_async(&mut self) -> Result<(), StreamStop> {
        let chunk = self.take_chunk();
        self.send_async(chunk).await?;
        self.whole.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Sends what is left and marks the answer whole, from a blocking thread.
    pub(super) fn finish(&mut self) -> Result<(), StreamStop> {
        self.send()?;
        self.whole.store(true, Ordering::SeqCst);
        Ok(())
    }

    fn send_when_full(&mut self) -> Result<(), StreamStop> {
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(())
    }

    fn take_chunk(&mut self) -> Bytes {
        Bytes::from(std::mem::replace(
            &mut self.buffer,
            Vec::with_capacity(CHUNK_BYTES),
        ))
    }

    /// Sends the buffer from a blocking thread, waiting for the client at
    /// most [`READER_STALL`].
    fn send(&mut self) -> Result<(), StreamStop> {
        let chunk = self.take_chunk();
        self.chunks
            .send_timeout(chunk, READER_STALL)
            .map_err(|error| match error {
                flume::SendTimeoutError::Timeout(_) => StreamStop::ReaderStalled,
                flume::SendTimeoutError::Disconnected(_) => StreamStop::ClientGone,
            })
    }

    /// Sends a chunk from an async task, waiting for the client at most
    /// [`READER_STALL`].
    async fn send_async(&self, chunk: Bytes) -> Result<(), StreamStop> {
        match tokio::time::timeout(READER_STALL, self.chunks.send_async(chunk)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(StreamStop::ClientGone),
            Err(_) => Err(StreamStop::ReaderStalled),
        }
    }

    /// Ends the answer early, with the cause in the log.
    pub(super) fn cut(self, game_id: Uuid, answer: &str, stop: &StreamStop) {
        if let StreamStop::ClientGone | StreamStop::ReaderStalled = stop {
            tracing::debug!(%game_id, answer, cause = %stop, "the client left before the end of the answer");
        } else {
            tracing::error!(%game_id, answer, cause = %stop, "a streamed answer was cut short");
        }
    }
}

/// An object's fields in order, each value's text borrowed unparsed.
struct Fields<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Fields<'de>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut fields = Vec::new();
                while let Some(field) = map.next_entry::<&'de str, &'de RawValue>()? {
                    fields.push(field);
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}
