//! The chunker against a decoder written from the protocol's rules (the clients' merge).

use super::*;

fn cell(family: &str, qualifier: &str, ts: i64, value: Vec<u8>) -> FilterCell {
    FilterCell {
        family: family.into(),
        qualifier: Bytes::copy_from_slice(qualifier.as_bytes()),
        timestamp_micros: ts,
        value: value.into(),
        labels: Vec::new(),
    }
}

pub(crate) type DecodedRow = (Bytes, Vec<FilterCell>);

/// Reassembles rows as a client does, checking the protocol's rules on the way.
pub(crate) fn decode(messages: &[pb::ReadRowsResponse]) -> Vec<DecodedRow> {
    let mut rows = Vec::new();
    let mut key: Option<Bytes> = None;
    let mut cells = Vec::new();
    let (mut family, mut qualifier) = (String::new(), Bytes::new());
    let mut partial: Option<(FilterCell, Vec<u8>)> = None;
    for message in messages {
        let first = &message.chunks[0];
        assert!(!first.row_key.is_empty(), "every message names its row");
        for c in &message.chunks {
            if key.is_none() {
                assert!(!c.row_key.is_empty(), "a row starts with its key");
                assert!(c.family_name.is_some() && c.qualifier.is_some());
                key = Some(c.row_key.clone());
            } else if !c.row_key.is_empty() {
                assert_eq!(Some(&c.row_key), key.as_ref(), "same row key");
            }
            if let Some(f) = &c.family_name {
                family = f.clone();
                assert!(c.qualifier.is_some(), "new family without qualifier");
            }
            if let Some(q) = &c.qualifier {
                qualifier = Bytes::from(q.clone());
            }
            let (mut current, mut value) = match partial.take() {
                Some(p) => {
                    assert!(c.family_name.is_none() && c.qualifier.is_none());
                    p
                }
                None => {
                    let mut fresh = cell(&family, "", c.timestamp_micros, vec![]);
                    fresh.labels = c.labels.clone();
                    (fresh, Vec::new())
                }
            };
            current.qualifier = qualifier.clone();
            value.extend_from_slice(&c.value);
            if c.value_size > 0 {
                assert!(c.value_size as usize > value.len());
                partial = Some((current, value));
                continue;
            }
            current.value = value.into();
            cells.push(current);
            if c.row_status == Some(RowStatus::CommitRow(true)) {
                let k = key.take().unwrap_or_default();
                rows.push((k, std::mem::take(&mut cells)));
            }
        }
    }
    assert!(
        key.is_none() && partial.is_none(),
        "the stream ends at a row boundary"
    );
    rows
}

fn run(limits: Limits, rows: Vec<DecodedRow>) -> Vec<pb::ReadRowsResponse> {
    let mut chunker = Chunker::new(limits);
    for (key, cells) in rows {
        chunker.push_row(&key, cells);
    }
    chunker.flush();
    chunker.take_ready()
}

fn sizes(messages: &[pb::ReadRowsResponse]) -> Vec<usize> {
    messages.iter().map(|m| m.encoded_len()).collect()
}

#[test]
fn a_ten_mebibyte_value_is_split_into_messages_under_the_client_limit() {
    let big: Vec<u8> = (0..10 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
    let rows = vec![
        (
            Bytes::from_static(b"a"),
            vec![cell("cf", "small", 1000, b"x".to_vec())],
        ),
        (
            Bytes::from_static(b"b"),
            vec![
                cell("cf", "big", 2000, big.clone()),
                cell("cf", "tail", 1000, b"t".to_vec()),
            ],
        ),
    ];
    let messages = run(Limits::default(), rows.clone());
    assert!(
        messages.len() >= 10,
        "split into pieces: {:?}",
        sizes(&messages)
    );
    for size in sizes(&messages) {
        assert!(size < CLIENT_MESSAGE_LIMIT, "message of {size} bytes");
    }
    assert_eq!(decode(&messages), rows);
}

#[test]
fn cells_under_the_split_threshold_travel_whole_and_start_messages() {
    let three = vec![b'v'; 2 * 1024 * 1024 + 512 * 1024];
    let rows = vec![(
        Bytes::from_static(b"r"),
        vec![
            cell("cf", "a", 1000, vec![b'a'; 600 * 1024]),
            cell("cf", "b", 1000, three.clone()),
            cell("cf", "c", 1000, vec![b'c'; 600 * 1024]),
        ],
    )];
    let messages = run(Limits::default(), rows.clone());
    assert_eq!(messages.len(), 3, "{:?}", sizes(&messages));
    for m in &messages {
        assert_eq!(m.chunks.len(), 1, "each message starts at a cell boundary");
        assert_eq!(m.chunks[0].value_size, 0, "no cell is split");
    }
    assert_eq!(decode(&messages), rows);
}

#[test]
fn small_rows_share_messages_up_to_the_target() {
    let limits = Limits {
        target: 1000,
        split_above: 3000,
        piece: 1000,
    };
    let rows: Vec<DecodedRow> = (0..100)
        .map(|i| {
            let key = Bytes::from(format!("row{i:03}"));
            (key, vec![cell("cf", "q", 1000, vec![b'v'; 50])])
        })
        .collect();
    let messages = run(limits, rows.clone());
    assert!(
        messages.len() > 1 && messages.len() < 20,
        "{:?}",
        sizes(&messages)
    );
    for size in sizes(&messages) {
        assert!(size <= 1000 + 100, "message of {size} bytes");
    }
    assert_eq!(decode(&messages), rows);
}

#[test]
fn headers_are_sent_when_they_change() {
    let rows = vec![(
        Bytes::from_static(b"r"),
        vec![
            cell("a", "q1", 3000, b"1".to_vec()),
            cell("a", "q1", 2000, b"2".to_vec()),
            cell("a", "q2", 1000, b"3".to_vec()),
            cell("b", "q2", 1000, b"4".to_vec()),
        ],
    )];
    let messages = run(Limits::default(), rows.clone());
    let chunks = &messages[0].chunks;
    assert_eq!(chunks.len(), 4);
    assert_eq!(chunks[0].row_key, Bytes::from_static(b"r"));
    assert!(chunks[1].row_key.is_empty() && chunks[1].family_name.is_none());
    assert!(chunks[1].qualifier.is_none());
    assert!(chunks[2].family_name.is_none() && chunks[2].qualifier.is_some());
    assert!(chunks[3].family_name.is_some() && chunks[3].qualifier.is_some());
    let commits: Vec<bool> = chunks.iter().map(|c| c.row_status.is_some()).collect();
    assert_eq!(commits, vec![false, false, false, true]);
    assert_eq!(decode(&messages), rows);
}

#[test]
fn a_row_continued_in_a_new_message_names_its_key_again() {
    let limits = Limits {
        target: 100,
        split_above: 1000,
        piece: 300,
    };
    let rows = vec![(
        Bytes::from_static(b"long-row"),
        vec![
            cell("cf", "a", 1000, vec![1; 90]),
            cell("cf", "b", 1000, vec![2; 90]),
            cell("cf", "c", 1000, vec![3; 2000]),
        ],
    )];
    let messages = run(limits, rows.clone());
    assert!(messages.len() >= 4, "{:?}", sizes(&messages));
    for m in &messages {
        assert_eq!(m.chunks[0].row_key, Bytes::from_static(b"long-row"));
    }
    assert_eq!(decode(&messages), rows);
}

#[test]
fn labels_and_empty_values_survive() {
    let mut labelled = cell("cf", "q", 5000, Vec::new());
    labelled.labels = vec!["l1".into()];
    let rows = vec![(Bytes::from_static(b"r"), vec![labelled.clone()])];
    let messages = run(Limits::default(), rows);
    assert_eq!(messages[0].chunks[0].labels, vec!["l1".to_string()]);
    assert_eq!(decode(&messages)[0].1, vec![labelled]);
}
