//! One scenario run against both `LocalFs` and `MemFs`: they must agree on the basic
//! semantics the engine relies on.

use std::io::ErrorKind;
use std::path::Path;

use crate::error::Error;
use crate::fs::{FileSystem, LocalFs, MemFs};

fn io_kind(err: Error) -> ErrorKind {
    match err {
        Error::Io { source, .. } => source.kind(),
        other => panic!("expected an I/O error, got {other}"),
    }
}

fn write_file(fs: &dyn FileSystem, path: &Path, data: &[u8]) {
    let mut w = fs.create(path).unwrap();
    w.append(data).unwrap();
    w.sync().unwrap();
}

fn basic_semantics(fs: &dyn FileSystem, root: &Path) {
    let dir = root.join("db");
    fs.create_dir_all(&dir.join("sub")).unwrap();
    assert!(fs.exists(&dir).unwrap());

    // Appended bytes are invisible until flushed.
    let a = dir.join("a.log");
    let mut w = fs.create(&a).unwrap();
    w.append(b"hello ").unwrap();
    assert_eq!(fs.file_size(&a).unwrap(), 0);
    w.append(b"world").unwrap();
    assert_eq!(w.len(), 11);
    w.flush().unwrap();
    assert_eq!(fs.read_all(&a).unwrap(), b"hello world");
    drop(w);

    let r = fs.open_read(&a).unwrap();
    assert_eq!(r.len(), 11);
    assert_eq!(r.read_at(6, 5).unwrap(), b"world");
    assert!(r.read_at(8, 5).is_err(), "a short read is an error");
    drop(r);

    write_file(fs, &dir.join("b.log"), b"bee");
    let names = fs.list(&dir).unwrap();
    assert_eq!(names, ["a.log", "b.log", "sub"]);
    assert!(fs.list(&dir.join("missing")).unwrap().is_empty());

    // Rename replaces the target.
    fs.rename(&a, &dir.join("b.log")).unwrap();
    assert_eq!(fs.list(&dir).unwrap(), ["b.log", "sub"]);
    assert_eq!(fs.read_all(&dir.join("b.log")).unwrap(), b"hello world");
    fs.sync_dir(&dir).unwrap();

    fs.truncate(&dir.join("b.log"), 5).unwrap();
    assert_eq!(fs.read_all(&dir.join("b.log")).unwrap(), b"hello");

    // Re-creating a file truncates it.
    write_file(fs, &dir.join("b.log"), b"x");
    assert_eq!(fs.file_size(&dir.join("b.log")).unwrap(), 1);

    fs.remove(&dir.join("b.log")).unwrap();
    assert!(!fs.exists(&dir.join("b.log")).unwrap());
    for err in [
        fs.open_read(&dir.join("b.log")).err().unwrap(),
        fs.file_size(&dir.join("b.log")).err().unwrap(),
        fs.remove(&dir.join("b.log")).err().unwrap(),
        fs.rename(&dir.join("b.log"), &dir.join("c")).err().unwrap(),
        fs.create(&dir.join("nodir").join("f")).err().unwrap(),
    ] {
        assert_eq!(io_kind(err), ErrorKind::NotFound);
    }

    write_file(fs, &dir.join("sub").join("deep"), b"d");
    fs.remove_dir_all(&dir).unwrap();
    assert!(!fs.exists(&dir).unwrap());
    assert!(!fs.exists(&dir.join("sub").join("deep")).unwrap());
    fs.remove_dir_all(&dir).unwrap();
}

#[test]
fn local_fs_conforms() {
    let tmp = tempfile::tempdir().unwrap();
    basic_semantics(&LocalFs, tmp.path());
}

#[test]
fn mem_fs_conforms() {
    let fs = MemFs::new();
    basic_semantics(&fs, Path::new("/data"));
    basic_semantics(&fs, Path::new("relative"));
    assert_eq!(fs.open_handles(), 0);
}
