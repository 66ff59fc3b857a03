//! The columns a request names, in the access model's form ([`Columns`]): from the cells a
//! write carries, and to and from a read's column selection.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use strata_access::Columns;
use strata_engine::{Cell, CellType, ColumnSelection};

/// The columns `cells` write: a family delete marker writes its whole family.
pub(crate) fn of_cells(cells: &[Cell]) -> Columns {
    // `None`: the whole family.
    let mut named: BTreeMap<Vec<u8>, Option<BTreeSet<Vec<u8>>>> = BTreeMap::new();
    for cell in cells {
        let whole_family = matches!(
            cell.cell_type,
            CellType::DeleteFamily | CellType::DeleteFamilyVersion
        );
        let entry = named
            .entry(cell.family.to_vec())
            .or_insert_with(|| Some(BTreeSet::new()));
        match entry {
            Some(_) if whole_family => *entry = None,
            Some(qualifiers) => {
                qualifiers.insert(cell.qualifier.to_vec());
            }
            None => {}
        }
    }
    named
        .into_iter()
        .map(|(family, qualifiers)| (family, qualifiers.into_iter().flatten().collect()))
        .collect()
}

/// The columns a read's selection names (empty: the whole row).
pub(crate) fn of_selection(selection: &ColumnSelection) -> Columns {
    selection
        .iter()
        .map(|(family, qualifiers)| {
            let named = qualifiers.iter().flatten().map(|q| q.to_vec()).collect();
            (family.to_vec(), named)
        })
        .collect()
}

/// A read's selection naming `columns`.
pub(crate) fn to_selection(columns: &Columns) -> ColumnSelection {
    columns
        .iter()
        .map(|(family, qualifiers)| {
            let named = (!qualifiers.is_empty()).then(|| {
                qualifiers
                    .iter()
                    .map(|q| Bytes::copy_from_slice(q))
                    .collect::<BTreeSet<Bytes>>()
            });
            (Bytes::copy_from_slice(family), named)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_delete_names_the_whole_family_and_puts_their_columns() {
        let cells = vec![
            Cell::put("r", "a", "q1", 1, "v"),
            Cell::put("r", "a", "q2", 1, "v"),
            Cell::put("r", "a", "q1", 2, "v"),
            Cell::put("r", "b", "q", 1, "v"),
            Cell::delete("r", "b", Bytes::new(), 1, CellType::DeleteFamily),
        ];
        let columns = of_cells(&cells);
        assert_eq!(
            columns[b"a".as_slice()],
            vec![b"q1".to_vec(), b"q2".to_vec()]
        );
        assert!(columns[b"b".as_slice()].is_empty());
    }

    #[test]
    fn a_selection_round_trips() {
        let mut selection = ColumnSelection::new();
        selection.insert(Bytes::from("a"), None);
        selection.insert(
            Bytes::from("b"),
            Some([Bytes::from("q")].into_iter().collect()),
        );
        assert_eq!(to_selection(&of_selection(&selection)), selection);
    }
}
