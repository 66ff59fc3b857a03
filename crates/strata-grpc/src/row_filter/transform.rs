//! The transformers: `strip_value_transformer` and `apply_label_transformer`.

use bytes::Bytes;

use super::FilterCell;

/// Bigtable's longest label.
pub const MAX_LABEL_CHARS: usize = 15;

/// A label is 1 to 15 characters of `[a-z0-9-]`.
pub fn check_label(label: &str) -> Result<(), String> {
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    if label.is_empty() || label.len() > MAX_LABEL_CHARS || !label.bytes().all(allowed) {
        return Err(format!(
            "{label:?} must match [a-z0-9-]+ and be at most {MAX_LABEL_CHARS} characters"
        ));
    }
    Ok(())
}

/// Replaces every value with the empty string (labels stay).
pub fn strip_values(mut cells: Vec<FilterCell>) -> Vec<FilterCell> {
    for cell in &mut cells {
        cell.value = Bytes::new();
    }
    cells
}

/// Adds `label` to every cell. The compiler allows one labelling sub-filter per chain, so a
/// cell reaches the output with at most one label, as in Bigtable.
pub fn apply_label(mut cells: Vec<FilterCell>, label: &str) -> Vec<FilterCell> {
    for cell in &mut cells {
        cell.labels.push(label.to_owned());
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(value: &'static [u8]) -> FilterCell {
        FilterCell {
            family: "f".into(),
            qualifier: Bytes::from_static(b"q"),
            timestamp_micros: 5000,
            value: Bytes::from_static(value),
            labels: Vec::new(),
        }
    }

    #[test]
    fn labels_are_checked() {
        assert!(check_label("a-0").is_ok());
        assert!(check_label("abcdefghijklmno").is_ok());
        assert!(check_label("abcdefghijklmnop").is_err());
        assert!(check_label("").is_err());
        assert!(check_label("A").is_err());
        assert!(check_label("a_b").is_err());
        assert!(check_label("é").is_err());
    }

    #[test]
    fn strip_keeps_everything_but_the_value() {
        let mut labelled = cell(b"v");
        labelled.labels.push("x".into());
        let out = strip_values(vec![labelled.clone(), cell(b"")]);
        assert_eq!(out[0].value, Bytes::new());
        assert_eq!(out[0].labels, labelled.labels);
        assert_eq!(out[0].timestamp_micros, 5000);
        assert_eq!(out[1], cell(b""));
    }

    #[test]
    fn label_is_added_to_every_cell() {
        let out = apply_label(vec![cell(b"a"), cell(b"b")], "l1");
        assert!(out.iter().all(|c| c.labels == ["l1"]));
        assert_eq!(out[1].value, Bytes::from_static(b"b"));
    }
}
