//! What the facade serves: a tree of znodes behind a trait, asked on every request so the
//! answer follows the live cluster (where the master is now), and [`ComputedTree`], a tree
//! of fixed paths whose contents are constants or computed on each read.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;

/// The znodes the facade serves. `get` runs inline on the connection's task for every
/// read, so it must answer from memory and quickly: no I/O, no waiting on locks held long.
pub trait ZkTree: Send + Sync + 'static {
    /// The node at `path`, an absolute path such as `/hbase/master`, as it is now; `None`
    /// when no such node exists. `/` and every ancestor of an existing node must exist.
    fn get(&self, path: &str) -> Option<ZkNode>;
}

/// One znode as a read sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZkNode {
    pub data: Bytes,
    /// The names (not paths) of the node's children, in the order to list them.
    pub children: Vec<String>,
    /// The data version a `Stat` reports; the facade never changes it.
    pub version: i32,
    /// Creation and modification time (ms since the epoch) a `Stat` reports.
    pub mtime_ms: i64,
}

impl ZkNode {
    pub fn with_data(data: impl Into<Bytes>) -> ZkNode {
        ZkNode {
            data: data.into(),
            ..ZkNode::default()
        }
    }
}

/// A path that [`ComputedTree`] cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a znode path: {path:?} ({why})")]
pub struct InvalidPath {
    pub path: String,
    pub why: &'static str,
}

/// Content that is computed on each read; `None` means the node is absent right now (no
/// active master, say), and it is then left out of its parent's children too.
pub type ComputeFn = Arc<dyn Fn() -> Option<Bytes> + Send + Sync>;

#[derive(Clone)]
enum Content {
    /// A node that always exists: given data, or an ancestor made for a deeper path.
    Fixed(Bytes),
    Computed(ComputeFn),
}

impl Content {
    fn current(&self) -> Option<Bytes> {
        match self {
            Content::Fixed(data) => Some(data.clone()),
            Content::Computed(compute) => compute(),
        }
    }
}

/// A tree of known paths. Adding a path makes its ancestors (up to `/`) exist as empty
/// nodes, unless they were given contents of their own.
#[derive(Clone)]
pub struct ComputedTree {
    nodes: BTreeMap<String, Content>,
    mtime_ms: i64,
}

impl std::fmt::Debug for ComputedTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComputedTree")
            .field("paths", &self.nodes.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Default for ComputedTree {
    fn default() -> Self {
        ComputedTree::new()
    }
}

impl ComputedTree {
    /// A tree holding only `/`.
    pub fn new() -> ComputedTree {
        let mut nodes = BTreeMap::new();
        nodes.insert("/".to_string(), Content::Fixed(Bytes::new()));
        ComputedTree { nodes, mtime_ms: 0 }
    }

    /// The time every node's `Stat` reports as its creation and modification time.
    pub fn with_mtime_ms(mut self, mtime_ms: i64) -> ComputedTree {
        self.mtime_ms = mtime_ms;
        self
    }

    /// `path` holds `data`, always.
    pub fn fixed(mut self, path: &str, data: impl Into<Bytes>) -> Result<Self, InvalidPath> {
        self.insert(path, Content::Fixed(data.into()))?;
        Ok(self)
    }

    /// `path` holds what `compute` returns at each read, and is absent while it returns
    /// `None`.
    pub fn computed(
        mut self,
        path: &str,
        compute: impl Fn() -> Option<Bytes> + Send + Sync + 'static,
    ) -> Result<Self, InvalidPath> {
        self.insert(path, Content::Computed(Arc::new(compute)))?;
        Ok(self)
    }

    fn insert(&mut self, path: &str, content: Content) -> Result<(), InvalidPath> {
        check_path(path)?;
        for ancestor in ancestors(path) {
            self.nodes
                .entry(ancestor.to_string())
                .or_insert_with(|| Content::Fixed(Bytes::new()));
        }
        self.nodes.insert(path.to_string(), content);
        Ok(())
    }

    /// The names of `path`'s children that exist now.
    fn children(&self, path: &str) -> Vec<String> {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        self.nodes
            .range(prefix.clone()..)
            .take_while(|(candidate, _)| candidate.starts_with(&prefix))
            .filter_map(|(candidate, content)| {
                let name = &candidate[prefix.len()..];
                let direct = !name.is_empty() && !name.contains('/');
                (direct && content.current().is_some()).then(|| name.to_string())
            })
            .collect()
    }
}

impl ZkTree for ComputedTree {
    fn get(&self, path: &str) -> Option<ZkNode> {
        let data = self.nodes.get(path)?.current()?;
        Some(ZkNode {
            data,
            children: self.children(path),
            version: 0,
            mtime_ms: self.mtime_ms,
        })
    }
}

/// ZooKeeper's path rules, as far as the facade relies on them: absolute, no empty, `.` or
/// `..` segment, no trailing slash (except `/` itself).
fn check_path(path: &str) -> Result<(), InvalidPath> {
    let invalid = |why| {
        Err(InvalidPath {
            path: path.to_string(),
            why,
        })
    };
    if !path.starts_with('/') {
        return invalid("not absolute");
    }
    if path == "/" {
        return Ok(());
    }
    for segment in path[1..].split('/') {
        match segment {
            "" => return invalid("empty segment or trailing slash"),
            "." | ".." => return invalid("relative segment"),
            _ if segment.contains('\0') => return invalid("NUL character"),
            _ => {}
        }
    }
    Ok(())
}

/// Every proper ancestor of a valid `path`, `/` first.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let cuts = path
        .match_indices('/')
        .map(|(i, _)| i)
        .filter(|&i| i > 0)
        .collect::<Vec<_>>();
    std::iter::once("/").chain(cuts.into_iter().map(move |i| &path[..i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn hbase_tree(master_up: Arc<AtomicBool>) -> ComputedTree {
        ComputedTree::new()
            .fixed("/hbase/hbaseid", &b"cluster-id"[..])
            .unwrap()
            .computed("/hbase/master", move || {
                master_up
                    .load(Ordering::SeqCst)
                    .then(|| Bytes::from_static(b"m1"))
            })
            .unwrap()
    }

    #[test]
    fn root_and_intermediate_nodes_exist_with_their_children() {
        let tree = hbase_tree(Arc::new(AtomicBool::new(true)));
        assert_eq!(tree.get("/").unwrap().children, vec!["hbase"]);
        let hbase = tree.get("/hbase").unwrap();
        assert!(hbase.data.is_empty());
        assert_eq!(hbase.children, vec!["hbaseid", "master"]);
        assert_eq!(&tree.get("/hbase/hbaseid").unwrap().data[..], b"cluster-id");
        assert!(tree.get("/hbase/hbaseid").unwrap().children.is_empty());
    }

    #[test]
    fn a_computed_node_follows_its_function() {
        let up = Arc::new(AtomicBool::new(true));
        let tree = hbase_tree(Arc::clone(&up));
        assert_eq!(&tree.get("/hbase/master").unwrap().data[..], b"m1");
        up.store(false, Ordering::SeqCst);
        assert_eq!(tree.get("/hbase/master"), None);
        assert_eq!(tree.get("/hbase").unwrap().children, vec!["hbaseid"]);
    }

    #[test]
    fn unknown_and_lookalike_paths_are_absent() {
        let tree = hbase_tree(Arc::new(AtomicBool::new(true)));
        for path in [
            "/hbase/",
            "hbase",
            "/hbas",
            "/hbase/masterx",
            "",
            "/zookeeper",
        ] {
            assert_eq!(tree.get(path), None, "{path:?}");
        }
    }

    #[test]
    fn children_are_direct_only() {
        let tree = ComputedTree::new().fixed("/a/b/c", Bytes::new()).unwrap();
        assert_eq!(tree.get("/a").unwrap().children, vec!["b"]);
        assert_eq!(tree.get("/a/b").unwrap().children, vec!["c"]);
    }

    #[test]
    fn a_node_given_data_keeps_it_when_a_child_is_added_later() {
        let tree = ComputedTree::new()
            .fixed("/hbase", &b"parent"[..])
            .unwrap()
            .fixed("/hbase/x", Bytes::new())
            .unwrap();
        assert_eq!(&tree.get("/hbase").unwrap().data[..], b"parent");
    }

    #[test]
    fn invalid_paths_are_refused() {
        for path in ["hbase", "/hbase/", "//x", "/a/./b", "/a/..", "/a\0"] {
            assert!(
                ComputedTree::new().fixed(path, Bytes::new()).is_err(),
                "{path:?}"
            );
        }
    }

    #[test]
    fn mtime_is_reported() {
        let tree = ComputedTree::new().with_mtime_ms(1234);
        assert_eq!(tree.get("/").unwrap().mtime_ms, 1234);
    }
}
