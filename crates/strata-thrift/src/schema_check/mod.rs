//! The schema-aware part of the request check (`binary_check.rs`): walks a request's
//! arguments the way pilota's generated decoders will read them.
//!
//! A generated decoder reads a field by its IDL type only when the field's declared type
//! matches; otherwise it skips the field by the declared type. Inside a matching field it
//! ignores every container's declared element types and reads the IDL's, reserving whatever
//! count it finds. So here a matching field is walked by its IDL type, and every container in
//! it must declare exactly the IDL's element types: then the decoder reads the very bytes
//! this walk checked. Anything else is walked by its declared types, as pilota skips it.
//! An empty container reads nothing, so its declared types do not matter (and a compact
//! empty map has none: the transcoder writes 0, 0).
//!
//! pilota's synchronous reader also takes a `string` value as a `FastStr` without checking it
//! is UTF-8 (`from_bytes_unchecked`), which would hand the server a `str` that is not one; so
//! every value the IDL types `string` must be UTF-8 here.

use crate::binary_walk::{invalid, CheckError, Walk, MAX_DEPTH};
use crate::schema::{wire_type_name, Method, StructDef, Ty, APPLICATION_EXCEPTION};

/// Walks one message body of a known struct type, remembering which field it is in for error
/// messages.
pub(crate) struct SchemaWalk {
    /// The method (or "exception"), named in errors.
    context: &'static str,
    body: &'static StructDef,
    /// Whether the decoder reads a known field by its id alone, whatever type it declares.
    by_id_alone: bool,
    /// Field ids from the argument down to the field being walked.
    path: Vec<i16>,
}

impl SchemaWalk {
    /// The arguments of `method`, read by pilota's generated decoder.
    pub(crate) fn request(method: &'static Method) -> Self {
        SchemaWalk {
            context: method.name,
            body: &method.args,
            by_id_alone: false,
            path: Vec::new(),
        }
    }

    /// The body of an exception message: pilota's hand-written `ApplicationException`
    /// decoder reads field 1 as a string and field 2 as an i32 without looking at their
    /// declared types.
    pub(crate) fn exception() -> Self {
        SchemaWalk {
            context: "exception",
            body: &APPLICATION_EXCEPTION,
            by_id_alone: true,
            path: Vec::new(),
        }
    }

    /// Walks the message body (the argument struct) at the cursor.
    pub(crate) fn body(mut self, walk: &mut Walk) -> Result<(), CheckError> {
        let body = self.body;
        self.fields(walk, body, 0)
    }

    fn fields(&mut self, walk: &mut Walk, def: &StructDef, depth: usize) -> Result<(), CheckError> {
        loop {
            let declared = walk.byte()?;
            if declared == 0 {
                return Ok(());
            }
            let id = walk.i16()?;
            match def.field(id) {
                Some(field) if self.by_id_alone || field.ty.wire_type() == declared => {
                    self.path.push(id);
                    self.value(walk, &field.ty, depth + 1)?;
                    self.path.pop();
                }
                // pilota skips a field it does not know or whose type differs.
                _ => walk.value(declared, depth + 1)?,
            }
        }
    }

    /// One value whose IDL type is `ty` (already known to match its declared type).
    fn value(&mut self, walk: &mut Walk, ty: &Ty, depth: usize) -> Result<(), CheckError> {
        if depth > MAX_DEPTH {
            return invalid("values nested too deeply");
        }
        match ty {
            Ty::Struct(def) => self.fields(walk, def, depth),
            Ty::List(elem) | Ty::Set(elem) => {
                let declared = walk.byte()?;
                let n = walk.count()?;
                self.expect(ty, n == 0 || declared == elem.wire_type(), &[declared])?;
                for _ in 0..n {
                    self.value(walk, elem, depth + 1)?;
                }
                Ok(())
            }
            Ty::Map(key, val) => {
                let declared = [walk.byte()?, walk.byte()?];
                let n = walk.count()?;
                let matches = declared == [key.wire_type(), val.wire_type()];
                self.expect(ty, n == 0 || matches, &declared)?;
                for _ in 0..n {
                    self.value(walk, key, depth + 1)?;
                    self.value(walk, val, depth + 1)?;
                }
                Ok(())
            }
            Ty::String => match walk.utf8_string()? {
                true => Ok(()),
                false => invalid(format!(
                    "{}: field {} is not UTF-8",
                    self.context,
                    self.path()
                )),
            },
            scalar => walk.value(scalar.wire_type(), depth),
        }
    }

    /// Where the walk is, as dotted field ids ("2.2": field 2 of the struct in argument 2).
    fn path(&self) -> String {
        let ids: Vec<String> = self.path.iter().map(i16::to_string).collect();
        ids.join(".")
    }

    /// Rejects a container of IDL type `expected` whose declared element types (`declared`)
    /// do not match it.
    fn expect(&self, expected: &Ty, matches: bool, declared: &[u8]) -> Result<(), CheckError> {
        if matches {
            return Ok(());
        }
        let declared: Vec<String> = declared.iter().map(|&t| wire_type_name(t)).collect();
        let declared = format!(
            "{}<{}>",
            wire_type_name(expected.wire_type()),
            declared.join(", ")
        );
        invalid(format!(
            "{}: field {} declares {declared}, the schema says {expected}",
            self.context,
            self.path(),
        ))
    }
}

#[cfg(test)]
pub(crate) mod tests;
