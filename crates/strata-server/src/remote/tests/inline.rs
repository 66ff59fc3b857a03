//! A read answered on a network thread (`crate::inline::here_only`) is answered only from
//! regions here: one whose region a peer owns is refused without being forwarded, and is
//! answered once run again outside the scope.

use std::sync::atomic::Ordering;

use super::*;
use crate::inline::here_only;
use crate::WriteDurability;

#[test]
fn a_read_of_a_region_here_is_answered_and_one_on_a_peer_is_refused_unsent() {
    let c = cluster();
    let cells = vec![
        Cell::put("a", "cf", "q", 1, "left"),
        Cell::put("z", "cf", "q", 1, "right"),
    ];
    c.a.rows()
        .mutate(&table(), cells, WriteDurability::SyncWal)
        .unwrap();
    let gets_before = c.to_b.gets.load(Ordering::Relaxed);

    let here = here_only(|| c.a.rows().get(&table(), &Get::new("a")));
    let row = here.expect("region 1 is open at A").unwrap().unwrap();
    assert_eq!(row.cells[0].value, Bytes::from("left"));

    let refused = here_only(|| c.a.rows().get(&table(), &Get::new("z")));
    assert!(refused.is_none(), "region 2 is B's: {refused:?}");
    assert_eq!(
        c.to_b.gets.load(Ordering::Relaxed),
        gets_before,
        "nothing was forwarded from inside the scope"
    );

    let forwarded = c.a.rows().get(&table(), &Get::new("z")).unwrap().unwrap();
    assert_eq!(forwarded.cells[0].value, Bytes::from("right"));
    assert_eq!(c.to_b.gets.load(Ordering::Relaxed), gets_before + 1);
}

#[test]
fn an_error_known_here_is_answered_inside_the_scope() {
    let c = cluster();
    let missing = TableName::parse("missing").unwrap();
    let answer = here_only(|| c.reference.rows().get(&missing, &Get::new("a")));
    let error = answer
        .expect("a standalone service waits on nothing")
        .unwrap_err();
    assert!(matches!(error, ServiceError::TableNotFound(_)), "{error:?}");
    let mut get = Get::new("a");
    get.columns.insert(Bytes::from("nope"), None);
    let answer = here_only(|| c.a.rows().get(&table(), &get));
    assert!(
        answer.is_some_and(|r| matches!(r, Err(ServiceError::FamilyNotFound { .. }))),
        "a missing family is not a wait (this catalog is not shared)"
    );
}
