//! A small XML element tree for request bodies, and escaping for responses. Bodies are
//! bounded in size before they get here, and nesting is bounded here.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::error::{RestError, RestResult};

/// Deeper documents are refused: HBase's bodies nest three levels at most.
const MAX_DEPTH: usize = 16;

/// One element: its name, attributes, child elements and text.
#[derive(Debug, Default, Clone)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
}

impl Element {
    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The child elements called `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }
}

fn bad_xml(e: impl std::fmt::Display) -> RestError {
    RestError::BadRequest(format!("malformed XML: {e}"))
}

/// Whether `name` is an XML name (approximately: the non-ASCII ranges are not checked).
fn is_xml_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || !c.is_ascii());
    first_ok && chars.all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c) || !c.is_ascii())
}

/// An attribute's local name. quick-xml takes anything up to `=` as the name; a schema's
/// attributes are written back as they came, so a name must be one XML can read again.
fn attribute_name(raw: &[u8]) -> RestResult<String> {
    match std::str::from_utf8(raw) {
        Ok(name) if is_xml_name(name) => Ok(name.to_string()),
        _ => Err(bad_xml(format!(
            "invalid attribute name {:?}",
            String::from_utf8_lossy(raw)
        ))),
    }
}

fn open(start: &BytesStart<'_>) -> RestResult<Element> {
    let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
    let mut attrs: Vec<(String, String)> = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(bad_xml)?;
        let key = attribute_name(attr.key.local_name().as_ref())?;
        // `a:x` and `b:x` are distinct to XML but the same attribute here.
        if attrs.iter().any(|(k, _)| *k == key) {
            return Err(bad_xml(format!("duplicate attribute {key}")));
        }
        let value = attr.unescape_value().map_err(bad_xml)?.into_owned();
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        ..Element::default()
    })
}

/// Parses a document into its root element.
pub fn parse(body: &[u8]) -> RestResult<Element> {
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut stack: Vec<Element> = Vec::new();
    loop {
        let event = reader.read_event().map_err(bad_xml)?;
        match event {
            Event::Start(start) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(bad_xml("nested too deeply"));
                }
                stack.push(open(&start)?);
            }
            Event::Empty(start) => {
                let element = open(&start)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok(element),
                }
            }
            Event::End(_) => {
                let element = stack.pop().ok_or_else(|| bad_xml("unbalanced end tag"))?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok(element),
                }
            }
            Event::Text(text) => {
                if let Some(current) = stack.last_mut() {
                    current.text.push_str(&text.unescape().map_err(bad_xml)?);
                }
            }
            Event::CData(data) => {
                if let Some(current) = stack.last_mut() {
                    current
                        .text
                        .push_str(&String::from_utf8_lossy(&data.into_inner()));
                }
            }
            Event::Eof => return Err(bad_xml("no root element")),
            _ => {}
        }
    }
}

/// Escapes text for an attribute value or element content.
pub fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

/// The declaration HBase's JAXB writer starts every document with.
pub const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

/// `<name a="v" .../>` with escaped attribute values.
pub fn empty_element(name: &str, attrs: &[(&str, String)]) -> String {
    format!("<{name}{}/>", attributes(attrs))
}

/// ` a="v" b="w"` with escaped values.
pub fn attributes(attrs: &[(&str, String)]) -> String {
    attrs
        .iter()
        .map(|(k, v)| format!(" {k}=\"{}\"", escape(v)))
        .collect()
}
