#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, ReadBuf};

use super::*;
use crate::gen::volo_gen::hbase::{HbaseMutateRowArgsRecv, Mutation, Text};

fn text(bytes: &[u8]) -> Text {
    Text(Bytes::copy_from_slice(bytes))
}

/// A mutateRow call whose value is `value_len` bytes, binary or compact.
fn call(value_len: usize, compact: bool) -> Vec<u8> {
    let args = HbaseMutateRowArgsRecv {
        table_name: Some(text(b"t")),
        row: Some(text(b"r")),
        mutations: Some(vec![Mutation {
            is_delete: Some(false),
            column: Some(text(b"cf:q")),
            value: Some(text(&vec![7u8; value_len])),
            write_to_wal: Some(true),
        }]),
        attributes: None,
    };
    crate::schema_check::tests::encode("mutateRow", &args, compact)
}

fn framed(message: &[u8]) -> Vec<u8> {
    let mut out = (message.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(message);
    out
}

/// Hands out its bytes at most `step` at a time, like a slow socket.
struct Trickle {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl AsyncRead for Trickle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self
            .step
            .min(buf.remaining())
            .min(self.data.len() - self.pos);
        let start = self.pos;
        buf.put_slice(&self.data[start..start + n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

fn reader(data: Vec<u8>, step: usize, budget: &RequestBudget) -> RequestReader<Trickle> {
    RequestReader::new(Trickle { data, pos: 0, step }, budget.clone())
}

fn raw(request: Request) -> Bytes {
    match request.message {
        Message::Raw(bytes) => bytes,
        Message::Transcoded(_) => panic!("expected a raw message"),
    }
}

#[tokio::test]
async fn every_form_is_read_whole_in_sequence_at_any_read_size() {
    let small = call(10, false);
    let large = call(300_000, false);
    let compact = call(70_000, true);
    let mut stream = framed(&small);
    stream.extend_from_slice(&large);
    stream.extend_from_slice(&compact);
    stream.extend_from_slice(&framed(&compact));
    stream.extend_from_slice(&small);
    for step in [1, 7, 4096, 1 << 20] {
        let budget = RequestBudget::new(1 << 30);
        let mut r = reader(stream.clone(), step, &budget);
        let first = r.next().await.unwrap().unwrap();
        assert!(first.framed);
        assert_eq!(raw(first), small);
        let second = r.next().await.unwrap().unwrap();
        assert!(!second.framed);
        assert!(
            second.charge.bytes() >= large.len(),
            "charged before reading"
        );
        assert_eq!(raw(second), large);
        let third = r.next().await.unwrap().unwrap();
        match third.message {
            Message::Transcoded(binary) => {
                let (expected, _) = compact_to_binary(&compact).unwrap();
                assert_eq!(binary, expected.freeze());
            }
            Message::Raw(_) => panic!("a buffered compact message is transcoded"),
        }
        drop(third.charge);
        let fourth = r.next().await.unwrap().unwrap();
        assert!(fourth.framed);
        assert_eq!(
            raw(fourth),
            compact,
            "a framed compact message is left to the codec"
        );
        assert_eq!(raw(r.next().await.unwrap().unwrap()), small);
        assert!(
            r.next().await.unwrap().is_none(),
            "clean end between requests"
        );
        assert_eq!(budget.in_flight(), 0, "every charge returned (step {step})");
    }
}

#[tokio::test]
async fn a_connection_ending_inside_a_request_is_truncated() {
    let message = call(1000, false);
    for cut in [1, 5, 30, message.len() - 1] {
        let budget = RequestBudget::new(1 << 20);
        let mut r = reader(message[..cut].to_vec(), 16, &budget);
        assert!(
            matches!(r.next().await, Err(ReadError::Truncated)),
            "cut {cut}"
        );
        let mut r = reader(framed(&message)[..cut + 4].to_vec(), 16, &budget);
        assert!(
            matches!(r.next().await, Err(ReadError::Truncated)),
            "framed cut {cut}"
        );
    }
}

#[tokio::test]
async fn bad_first_bytes_and_frame_lengths_are_refused_before_any_allocation() {
    let budget = RequestBudget::new(1 << 20);
    let cases: [(&[u8], &str); 4] = [
        (b"GET / HTTP/1.1\r\n", "not a Thrift message"),
        (
            &[0x7f, 0xff, 0xff, 0xff, 0x80, 0x01],
            "frame of 2147483647 bytes",
        ),
        (&[0xff, 0xff, 0xff, 0xf0, 0x80, 0x01], "frame of -16 bytes"),
        (
            &[0x01, 0x00, 0x00, 0x01, 0x82, 0x21],
            "frame of 16777217 bytes",
        ),
    ];
    for (input, expected) in cases {
        let mut r = reader(input.to_vec(), 64, &budget);
        match r.next().await {
            Err(ReadError::Invalid { reason, .. }) => {
                assert!(reason.contains(expected), "{reason}")
            }
            other => panic!("{input:02x?}: {other:?}"),
        }
        assert_eq!(budget.in_flight(), 0);
    }
}

#[tokio::test]
async fn a_request_that_does_not_fit_waits_for_the_budget_without_reading() {
    let budget = RequestBudget::new(100_000);
    let mut holder = budget.start();
    holder.grow_to(90_000).await;
    let message = call(50_000, false);
    let mut r = reader(framed(&message), 1 << 20, &budget);
    let waited = tokio::time::timeout(Duration::from_millis(100), r.next()).await;
    assert!(waited.is_err(), "read a frame the budget had no room for");
    assert!(
        r.reader.pos <= FIRST_READ_BYTES,
        "read {} bytes of a frame it had no room for",
        r.reader.pos
    );
    drop(holder);
    let request = tokio::time::timeout(Duration::from_secs(5), r.next())
        .await
        .expect("proceeds once room is returned")
        .unwrap()
        .unwrap();
    assert_eq!(raw(request), message);
    assert_eq!(budget.in_flight(), 0);
}

#[tokio::test]
async fn a_large_frame_sent_slowly_holds_only_what_arrived() {
    let budget = RequestBudget::new(64 << 20);
    let (mut client, server) = tokio::io::duplex(1 << 20);
    let mut header = (10u32 << 20).to_be_bytes().to_vec();
    header.extend_from_slice(&call(1000, false)[..1000]);
    tokio::io::AsyncWriteExt::write_all(&mut client, &header)
        .await
        .unwrap();
    let mut r = RequestReader::new(server, budget.clone());
    let reading = tokio::spawn(async move { r.next().await.map(|_| ()) });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!reading.is_finished(), "the rest of the frame never came");
    let held = budget.in_flight();
    assert!(
        held <= FIRST_READ_BYTES + READ_CHUNK,
        "a 10 MiB frame header alone charged {held} bytes"
    );
    reading.abort();
    drop(client);
}
