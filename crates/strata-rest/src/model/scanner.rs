//! HBase's Scanner document: the parameters of a stateful scanner. Row keys and columns are
//! base64; the filter is HBase's JSON filter representation (or, as a Strata extension,
//! filter-language text).

use bytes::Bytes;
use serde::Deserialize;

use super::cellset::decode_b64;
use super::xml;
use crate::error::{RestError, RestResult};
use crate::format::Format;

/// HBase's default number of cells per scanner fetch.
pub const DEFAULT_BATCH: usize = 1;

/// A parsed Scanner document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannerModel {
    pub start_row: Bytes,
    pub end_row: Bytes,
    /// `family` or `family:qualifier` each.
    pub columns: Vec<Bytes>,
    /// Cells per fetch.
    pub batch: usize,
    pub start_time: i64,
    pub end_time: i64,
    pub max_versions: u32,
    /// Most rows the scanner returns in all (0: no limit).
    pub limit: usize,
    pub filter: Option<String>,
    /// HBase's `cacheBlocks`: false keeps the scan's blocks out of the block cache.
    pub cache_blocks: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonScanner {
    start_row: Option<String>,
    end_row: Option<String>,
    #[serde(default)]
    column: Vec<String>,
    batch: Option<i64>,
    start_time: Option<i64>,
    end_time: Option<i64>,
    max_versions: Option<i64>,
    limit: Option<i64>,
    filter: Option<String>,
    cache_blocks: Option<bool>,
}

fn bad(message: String) -> RestError {
    RestError::BadRequest(message)
}

/// A count that must be positive when given.
fn positive(name: &str, value: Option<i64>, default: i64) -> RestResult<i64> {
    match value {
        None => Ok(default),
        Some(v) if v > 0 => Ok(v),
        Some(v) => Err(bad(format!("{name} must be positive, got {v}"))),
    }
}

fn optional_b64(text: Option<&str>, what: &str) -> RestResult<Bytes> {
    text.map(|t| decode_b64(t, what))
        .transpose()
        .map(Option::unwrap_or_default)
}

impl ScannerModel {
    /// Parses a request body.
    pub fn parse(body: &[u8], format: Format) -> RestResult<ScannerModel> {
        let json = match format {
            Format::Json => serde_json::from_slice::<JsonScanner>(body)
                .map_err(|e| bad(format!("malformed Scanner JSON: {e}")))?,
            Format::Xml => from_xml(body)?,
            _ => return Err(RestError::UnsupportedMediaType(format!("{format:?}"))),
        };
        let time = |name: &str, value: Option<i64>, default: i64| match value {
            Some(v) if v < 0 => Err(bad(format!("{name} must not be negative"))),
            Some(v) => Ok(v),
            None => Ok(default),
        };
        let model = ScannerModel {
            start_row: optional_b64(json.start_row.as_deref(), "startRow")?,
            end_row: optional_b64(json.end_row.as_deref(), "endRow")?,
            columns: json
                .column
                .iter()
                .map(|c| decode_b64(c, "column"))
                .collect::<RestResult<_>>()?,
            batch: positive("batch", json.batch, DEFAULT_BATCH as i64)? as usize,
            start_time: time("startTime", json.start_time, 0)?,
            end_time: time("endTime", json.end_time, i64::MAX)?,
            // HBase's scanners return every stored version unless told otherwise.
            max_versions: u32::try_from(positive("maxVersions", json.max_versions, i64::MAX)?)
                .unwrap_or(u32::MAX),
            limit: json.limit.filter(|&l| l > 0).unwrap_or(0) as usize,
            filter: json.filter.filter(|f| !f.trim().is_empty()),
            cache_blocks: json.cache_blocks.unwrap_or(true),
        };
        if model.end_time <= model.start_time {
            return Err(bad("endTime must be after startTime".into()));
        }
        Ok(model)
    }
}

fn number(element: &xml::Element, name: &str) -> RestResult<Option<i64>> {
    element
        .attr(name)
        .map(|v| {
            v.trim()
                .parse::<i64>()
                .map_err(|_| bad(format!("{name}: {v:?} is not a number")))
        })
        .transpose()
}

fn boolean(element: &xml::Element, name: &str) -> RestResult<Option<bool>> {
    element
        .attr(name)
        .map(|v| match v.trim() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad(format!("{name}: {v:?} is not true or false"))),
        })
        .transpose()
}

/// `<Scanner startRow=".." batch=".."><column>..</column><filter>..</filter></Scanner>`.
fn from_xml(body: &[u8]) -> RestResult<JsonScanner> {
    let root = xml::parse(body)?;
    if root.name != "Scanner" {
        return Err(bad(format!(
            "expected a Scanner element, found {}",
            root.name
        )));
    }
    let filter = root.children_named("filter").next().map(|f| f.text.clone());
    Ok(JsonScanner {
        start_row: root.attr("startRow").map(str::to_string),
        end_row: root.attr("endRow").map(str::to_string),
        column: root
            .children_named("column")
            .map(|c| c.text.clone())
            .collect(),
        batch: number(&root, "batch")?,
        start_time: number(&root, "startTime")?,
        end_time: number(&root, "endTime")?,
        max_versions: number(&root, "maxVersions")?,
        limit: number(&root, "limit")?,
        filter,
        cache_blocks: boolean(&root, "cacheBlocks")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_blocks_is_read_from_json_and_xml_and_defaults_to_true() {
        let json = |body: &str| ScannerModel::parse(body.as_bytes(), Format::Json);
        assert!(json("{}").unwrap().cache_blocks);
        assert!(!json(r#"{"cacheBlocks":false}"#).unwrap().cache_blocks);
        assert!(json(r#"{"cacheBlocks":true}"#).unwrap().cache_blocks);
        let xml = |body: &str| ScannerModel::parse(body.as_bytes(), Format::Xml);
        assert!(xml("<Scanner/>").unwrap().cache_blocks);
        assert!(
            !xml(r#"<Scanner cacheBlocks="false"/>"#)
                .unwrap()
                .cache_blocks
        );
        assert!(xml(r#"<Scanner cacheBlocks="maybe"/>"#).is_err());
    }
}
