//! HBase's CellSet: rows of cells with base64 row keys, columns (`family:qualifier`) and
//! values, in JSON (`{"Row":[{"key":..,"Cell":[{"column":..,"timestamp":..,"$":..}]}]}`)
//! and XML (`<CellSet><Row key=".."><Cell column=".." timestamp="..">..</Cell></Row>`).

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use strata_engine::{Cell, RowResult};

use super::xml;
use crate::error::{RestError, RestResult};
use crate::format::Format;

/// One cell of a CellSet. In requests the column and timestamp may be missing (the path's
/// column and the server's time are used then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellModel {
    pub column: Option<Bytes>,
    pub timestamp: Option<i64>,
    pub value: Bytes,
}

/// One row of a CellSet; in requests the key may be missing (the path's row is used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowModel {
    pub key: Option<Bytes>,
    pub cells: Vec<CellModel>,
}

/// A set of rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellSet {
    pub rows: Vec<RowModel>,
}

#[derive(Serialize, Deserialize)]
struct JsonCellSet {
    #[serde(rename = "Row", default)]
    rows: Vec<JsonRow>,
}

#[derive(Serialize, Deserialize)]
struct JsonRow {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    #[serde(rename = "Cell", default)]
    cells: Vec<JsonCell>,
}

#[derive(Serialize, Deserialize)]
struct JsonCell {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    column: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timestamp: Option<i64>,
    #[serde(rename = "$", default)]
    value: Option<String>,
}

/// Decodes base64 as HBase does (standard alphabet, padded).
pub fn decode_b64(text: &str, what: &str) -> RestResult<Bytes> {
    B64.decode(text.trim())
        .map(Bytes::from)
        .map_err(|e| RestError::BadRequest(format!("{what} is not valid base64: {e}")))
}

/// Encodes base64 as HBase does.
pub fn encode_b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// `family:qualifier` of a cell.
pub fn column_of(cell: &Cell) -> Vec<u8> {
    let mut column = Vec::with_capacity(cell.family.len() + 1 + cell.qualifier.len());
    column.extend_from_slice(&cell.family);
    column.push(b':');
    column.extend_from_slice(&cell.qualifier);
    column
}

impl CellSet {
    /// The rows read from the store.
    pub fn from_rows(rows: Vec<RowResult>) -> CellSet {
        CellSet {
            rows: rows
                .into_iter()
                .map(|r| RowModel {
                    key: Some(r.row),
                    cells: r
                        .cells
                        .iter()
                        .map(|c| CellModel {
                            column: Some(Bytes::from(column_of(c))),
                            timestamp: Some(c.timestamp),
                            value: c.value.clone(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// Renders as JSON or XML.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Xml => self.to_xml(),
            _ => self.to_json(),
        }
    }

    fn to_json(&self) -> String {
        let json = JsonCellSet {
            rows: self
                .rows
                .iter()
                .map(|r| JsonRow {
                    key: r.key.as_deref().map(encode_b64),
                    cells: r
                        .cells
                        .iter()
                        .map(|c| JsonCell {
                            column: c.column.as_deref().map(encode_b64),
                            timestamp: c.timestamp,
                            value: Some(encode_b64(&c.value)),
                        })
                        .collect(),
                })
                .collect(),
        };
        // Serialising plain strings and numbers cannot fail.
        serde_json::to_string(&json).unwrap_or_default()
    }

    fn to_xml(&self) -> String {
        let mut out = String::from(xml::DECLARATION);
        if self.rows.is_empty() {
            out.push_str("<CellSet/>");
            return out;
        }
        out.push_str("<CellSet>");
        for row in &self.rows {
            // A row without a key (only in requests) has no attribute: `key=""` would read
            // back as an empty key.
            let key: Vec<_> = row.key.iter().map(|k| ("key", encode_b64(k))).collect();
            out.push_str(&format!("<Row{}>", xml::attributes(&key)));
            for cell in &row.cells {
                let mut attrs = Vec::new();
                if let Some(column) = &cell.column {
                    attrs.push(("column", encode_b64(column)));
                }
                if let Some(ts) = cell.timestamp {
                    attrs.push(("timestamp", ts.to_string()));
                }
                out.push_str(&format!(
                    "<Cell{}>{}</Cell>",
                    xml::attributes(&attrs),
                    encode_b64(&cell.value)
                ));
            }
            out.push_str("</Row>");
        }
        out.push_str("</CellSet>");
        out
    }

    /// Parses a request body in JSON or XML.
    pub fn parse(body: &[u8], format: Format) -> RestResult<CellSet> {
        match format {
            Format::Json => CellSet::from_json(body),
            Format::Xml => CellSet::from_xml(body),
            _ => Err(RestError::UnsupportedMediaType(format!("{format:?}"))),
        }
    }

    fn from_json(body: &[u8]) -> RestResult<CellSet> {
        let json: JsonCellSet = serde_json::from_slice(body)
            .map_err(|e| RestError::BadRequest(format!("malformed CellSet JSON: {e}")))?;
        let rows = json
            .rows
            .into_iter()
            .map(|r| {
                let cells = r
                    .cells
                    .into_iter()
                    .map(|c| {
                        Ok(CellModel {
                            column: c.column.map(|t| decode_b64(&t, "column")).transpose()?,
                            timestamp: c.timestamp,
                            value: decode_b64(c.value.as_deref().unwrap_or(""), "value")?,
                        })
                    })
                    .collect::<RestResult<Vec<_>>>()?;
                Ok(RowModel {
                    key: r.key.map(|k| decode_b64(&k, "row key")).transpose()?,
                    cells,
                })
            })
            .collect::<RestResult<Vec<_>>>()?;
        Ok(CellSet { rows })
    }

    fn from_xml(body: &[u8]) -> RestResult<CellSet> {
        let root = xml::parse(body)?;
        if root.name != "CellSet" {
            return Err(RestError::BadRequest(format!(
                "expected a CellSet element, found {}",
                root.name
            )));
        }
        let rows = root
            .children_named("Row")
            .map(|r| {
                let cells = r
                    .children_named("Cell")
                    .map(|c| {
                        let timestamp = c
                            .attr("timestamp")
                            .map(|t| {
                                t.trim().parse::<i64>().map_err(|_| {
                                    RestError::BadRequest(format!("invalid timestamp {t:?}"))
                                })
                            })
                            .transpose()?;
                        Ok(CellModel {
                            column: c
                                .attr("column")
                                .map(|t| decode_b64(t, "column"))
                                .transpose()?,
                            timestamp,
                            value: decode_b64(&c.text, "value")?,
                        })
                    })
                    .collect::<RestResult<Vec<_>>>()?;
                Ok(RowModel {
                    key: r
                        .attr("key")
                        .map(|k| decode_b64(k, "row key"))
                        .transpose()?,
                    cells,
                })
            })
            .collect::<RestResult<Vec<_>>>()?;
        Ok(CellSet { rows })
    }
}
