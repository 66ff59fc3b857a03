//! Content negotiation: which representation a response takes (from `Accept`) and which one
//! a request body is in (from `Content-Type`), with HBase's media type names.

use crate::error::{RestError, RestResult};

/// A representation HBase's REST server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Xml,
    Json,
    /// A single raw cell value (`application/octet-stream`).
    Binary,
    /// HBase's protobuf messages: recognised, never produced or read (see docs/rest.md).
    Protobuf,
}

/// A negotiated response representation and the exact Content-Type to answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Negotiated {
    pub format: Format,
    pub content_type: &'static str,
}

/// Every media type name understood, with its representation.
const MEDIA_TYPES: &[(&str, Format)] = &[
    ("text/plain", Format::Text),
    ("text/xml", Format::Xml),
    ("application/xml", Format::Xml),
    ("application/json", Format::Json),
    ("application/octet-stream", Format::Binary),
    ("application/x-protobuf", Format::Protobuf),
    ("application/protobuf", Format::Protobuf),
];

fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The representation of a request body, from its `Content-Type`.
pub fn body_format(content_type: Option<&str>) -> RestResult<Format> {
    let Some(content_type) = content_type else {
        return Err(RestError::UnsupportedMediaType("(no Content-Type)".into()));
    };
    let wanted = essence(content_type);
    match MEDIA_TYPES.iter().find(|(name, _)| *name == wanted) {
        Some((_, Format::Protobuf)) | None => {
            Err(RestError::UnsupportedMediaType(content_type.to_string()))
        }
        Some((_, format)) => Ok(*format),
    }
}

/// One `Accept` entry: a media range and its quality.
struct AcceptEntry {
    range: String,
    quality: f32,
}

fn parse_accept(accept: &str) -> Vec<AcceptEntry> {
    accept
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let range = parts.next()?.trim().to_ascii_lowercase();
            if range.is_empty() {
                return None;
            }
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            Some(AcceptEntry { range, quality })
        })
        .collect()
}

/// How well `media_type` matches `range` (exact beats `type/*` beats `*/*`), if at all.
fn specificity(range: &str, media_type: &str) -> Option<u8> {
    if range == media_type {
        return Some(3);
    }
    let (kind, _) = media_type.split_once('/')?;
    match range.split_once('/') {
        Some(("*", "*")) => Some(1),
        Some((k, "*")) if k == kind => Some(2),
        _ => None,
    }
}

/// Picks the response representation among `offered` (in the resource's order of
/// preference, the first being the default) for an `Accept` header.
pub fn negotiate(accept: Option<&str>, offered: &[Format]) -> RestResult<Negotiated> {
    let entries = accept.map(parse_accept).unwrap_or_default();
    let mut best: Option<(f32, Negotiated)> = None;
    for &format in offered {
        for &(name, f) in MEDIA_TYPES.iter().filter(|(_, f)| *f == format) {
            let quality = if entries.is_empty() {
                1.0
            } else {
                // The most specific matching entry decides the quality.
                entries
                    .iter()
                    .filter_map(|e| specificity(&e.range, name).map(|s| (s, e.quality)))
                    .max_by_key(|(s, _)| *s)
                    .map_or(0.0, |(_, q)| q)
            };
            if quality > 0.0 && best.is_none_or(|(q, _)| quality > q) {
                best = Some((
                    quality,
                    Negotiated {
                        format: f,
                        content_type: name,
                    },
                ));
            }
        }
    }
    best.map(|(_, n)| n)
        .ok_or_else(|| RestError::NotAcceptable(accept.unwrap_or("").to_string()))
}
