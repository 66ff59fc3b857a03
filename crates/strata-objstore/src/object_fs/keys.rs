//! Engine paths to object keys. The engine names files by path (`<volume root>/regions/
//! <id>/<family>/<file>`); on an object store the same names, without a leading `/`, are
//! the keys, so the layout reads the same in both places.

use std::path::{Component, Path};

use object_store::path::Path as ObjectPath;
use strata_engine::{Error, Result};

/// The object key for an engine path. Only plain names are allowed: `..` or a prefix
/// could escape the store's directory.
pub fn object_key(path: &Path) -> Result<ObjectPath> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(name) => parts.push(name.to_str().ok_or_else(|| {
                Error::InvalidArgument(format!("{} is not UTF-8", path.display()))
            })?),
            Component::ParentDir | Component::Prefix(_) => {
                return Err(Error::InvalidArgument(format!(
                    "{} is not a plain path inside the object store",
                    path.display()
                )))
            }
        }
    }
    ObjectPath::parse(parts.join("/")).map_err(|e| {
        Error::InvalidArgument(format!("{} is not a valid object key: {e}", path.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_keys_without_the_root() {
        let key = object_key(Path::new("/data/regions/0007/cf/MANIFEST-1")).unwrap();
        assert_eq!(key.as_ref(), "data/regions/0007/cf/MANIFEST-1");
        assert_eq!(object_key(Path::new("a/./b")).unwrap().as_ref(), "a/b");
    }

    #[test]
    fn escaping_paths_are_refused() {
        let err = object_key(Path::new("/data/../etc")).unwrap_err();
        assert!(err.to_string().contains("not a plain path"), "{err}");
    }
}
