//! HBase's TableSchema / ColumnSchema: a table's name and families, each with its settings
//! as upper-case attributes (`VERSIONS`, `TTL`, `COMPRESSION`, ...) whose values are text.
//! The table's own attributes: `IS_META`, and `DURABILITY` when the table has one. Any
//! other attribute of a table or family is kept as its metadata and listed back as given.

use bytes::Bytes;
use serde_json::{Map, Value};
use strata_engine::{FamilyOptions, SchemaMetadata};
use strata_server::{family_attrs, WriteDurability};

use super::xml;
use crate::error::{RestError, RestResult};
use crate::format::Format;

/// A family's name and attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSchema {
    pub name: String,
    pub attrs: Vec<(String, String)>,
}

/// A table's name, attributes and families.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSchema {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub columns: Vec<ColumnSchema>,
}

fn bad(message: String) -> RestError {
    RestError::BadRequest(message)
}

/// The attributes HBase reports for a family (see `strata_server::family_attrs`).
pub fn describe_family(f: &FamilyOptions) -> ColumnSchema {
    ColumnSchema {
        name: String::from_utf8_lossy(&f.name).into_owned(),
        attrs: family_attrs::describe(f),
    }
}

/// Sets one attribute on a family; attributes Strata has no setting for are kept as the
/// family's metadata, as HBase keeps unknown ones.
fn apply_attr(f: &mut FamilyOptions, key: &str, value: &str) -> RestResult<()> {
    family_attrs::apply(f, key, value).map_err(bad)
}

impl ColumnSchema {
    /// The family's settings: HBase's defaults overridden by the attributes.
    pub fn to_family(&self) -> RestResult<FamilyOptions> {
        // A trailing ':' is tolerated, as HBase's older clients send one.
        let name = self.name.strip_suffix(':').unwrap_or(&self.name);
        if name.is_empty() {
            return Err(bad("a ColumnSchema needs a name".into()));
        }
        let mut family = FamilyOptions::new(name.as_bytes().to_vec());
        for (key, value) in &self.attrs {
            apply_attr(&mut family, key, value)?;
        }
        Ok(family)
    }
}

fn json_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `name` and the other keys of a JSON object, as attributes.
fn json_named(object: &Map<String, Value>, skip: &str) -> (String, Vec<(String, String)>) {
    let name = object.get("name").map(json_text).unwrap_or_default();
    let attrs = object
        .iter()
        .filter(|(k, _)| *k != "name" && *k != skip)
        .map(|(k, v)| (k.clone(), json_text(v)))
        .collect();
    (name, attrs)
}

/// The table attributes HBase reports: `IS_META`, then `DURABILITY` unless it is the
/// default (HBase lists only attributes that were set), then the table's metadata.
pub fn table_attrs(
    durability: WriteDurability,
    metadata: &SchemaMetadata,
) -> Vec<(String, String)> {
    let mut attrs = vec![("IS_META".to_string(), "false".to_string())];
    if durability != WriteDurability::UseDefault {
        attrs.push(("DURABILITY".to_string(), durability.name().to_string()));
    }
    attrs.extend(metadata_attrs(metadata));
    attrs
}

/// Metadata attributes as REST's text attributes (configuration has no place in HBase's
/// REST schema).
fn metadata_attrs(metadata: &SchemaMetadata) -> impl Iterator<Item = (String, String)> + '_ {
    let text = |b: &Bytes| String::from_utf8_lossy(b).into_owned();
    metadata
        .attributes
        .iter()
        .map(move |(k, v)| (text(k), text(v)))
}

impl TableSchema {
    /// The table attributes Strata keeps as metadata: all but `DURABILITY` (a setting)
    /// and `IS_META` (what HBase reports, never set).
    pub fn metadata(&self) -> SchemaMetadata {
        let mut metadata = SchemaMetadata::default();
        let kept = self.attrs.iter().filter(|(key, _)| {
            !key.eq_ignore_ascii_case("DURABILITY") && !key.eq_ignore_ascii_case("IS_META")
        });
        for (key, value) in kept {
            metadata
                .attributes
                .insert(Bytes::from(key.clone()), Bytes::from(value.clone()));
        }
        metadata
    }

    /// The `DURABILITY` attribute, if given; a value that is none of HBase's five is a 400.
    /// Other table attributes are ignored, as HBase keeps unknown ones as opaque metadata.
    pub fn durability(&self) -> RestResult<Option<WriteDurability>> {
        self.attrs
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case("DURABILITY"))
            .map(|(_, value)| value.parse().map_err(|e| bad(format!("{e}"))))
            .transpose()
    }

    /// Parses a request body.
    pub fn parse(body: &[u8], format: Format) -> RestResult<TableSchema> {
        match format {
            Format::Json => TableSchema::from_json(body),
            Format::Xml => TableSchema::from_xml(body),
            _ => Err(RestError::UnsupportedMediaType(format!("{format:?}"))),
        }
    }

    fn from_json(body: &[u8]) -> RestResult<TableSchema> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| bad(format!("malformed TableSchema JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("a TableSchema must be a JSON object".into()))?;
        let (name, attrs) = json_named(object, "ColumnSchema");
        let columns = match object.get("ColumnSchema") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    let object = item
                        .as_object()
                        .ok_or_else(|| bad("a ColumnSchema must be a JSON object".into()))?;
                    let (name, attrs) = json_named(object, "");
                    Ok(ColumnSchema { name, attrs })
                })
                .collect::<RestResult<Vec<_>>>()?,
            Some(_) => return Err(bad("ColumnSchema must be an array".into())),
        };
        Ok(TableSchema {
            name,
            attrs,
            columns,
        })
    }

    fn from_xml(body: &[u8]) -> RestResult<TableSchema> {
        let root = xml::parse(body)?;
        if root.name != "TableSchema" {
            return Err(bad(format!(
                "expected a TableSchema element, found {}",
                root.name
            )));
        }
        let named = |e: &xml::Element| {
            let name = e.attr("name").unwrap_or_default().to_string();
            let attrs = e
                .attrs
                .iter()
                .filter(|(k, _)| k != "name")
                .cloned()
                .collect();
            (name, attrs)
        };
        let (name, attrs) = named(&root);
        let columns = root
            .children_named("ColumnSchema")
            .map(|c| {
                let (name, attrs) = named(c);
                ColumnSchema { name, attrs }
            })
            .collect();
        Ok(TableSchema {
            name,
            attrs,
            columns,
        })
    }

    /// Renders as text (HBase's shell-like form), JSON or XML.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Xml => self.to_xml(),
            Format::Json => self.to_json(),
            _ => self.to_text(),
        }
    }

    /// Written by hand to keep HBase's key order: `name`, `ColumnSchema`, then attributes.
    fn to_json(&self) -> String {
        let quote = |s: &str| Value::String(s.to_string()).to_string();
        let pairs = |attrs: &[(String, String)]| -> String {
            attrs
                .iter()
                .map(|(k, v)| format!(",{}:{}", quote(k), quote(v)))
                .collect()
        };
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|c| format!("{{\"name\":{}{}}}", quote(&c.name), pairs(&c.attrs)))
            .collect();
        format!(
            "{{\"name\":{},\"ColumnSchema\":[{}]{}}}",
            quote(&self.name),
            columns.join(","),
            pairs(&self.attrs)
        )
    }

    fn to_xml(&self) -> String {
        let with_name = |name: &str, attrs: &[(String, String)]| {
            let mut all = vec![("name", name.to_string())];
            all.extend(attrs.iter().map(|(k, v)| (k.as_str(), v.clone())));
            xml::attributes(&all)
        };
        let mut out = String::from(xml::DECLARATION);
        out.push_str(&format!(
            "<TableSchema{}>",
            with_name(&self.name, &self.attrs)
        ));
        for c in &self.columns {
            out.push_str(&format!("<ColumnSchema{}/>", with_name(&c.name, &c.attrs)));
        }
        out.push_str("</TableSchema>");
        out
    }

    fn to_text(&self) -> String {
        let pairs = |attrs: &[(String, String)]| {
            attrs
                .iter()
                .map(|(k, v)| format!(", {k} => '{v}'"))
                .collect::<String>()
        };
        let columns = self
            .columns
            .iter()
            .map(|c| format!("{{ NAME => '{}'{} }}", c.name, pairs(&c.attrs)))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "{{ NAME=> '{}'{}, COLUMNS => [ {} ] }}",
            self.name,
            pairs(&self.attrs),
            columns
        )
    }
}
