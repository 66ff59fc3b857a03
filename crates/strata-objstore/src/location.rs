//! Store URLs: `s3://BUCKET/PREFIX`, `file:///DIR`, `hdfs://HOST:PORT/PATH` (with the
//! `hdfs` cargo feature) and `memory://` (tests), each opened as a [`BlockingStore`] rooted
//! at the prefix, so the rest of the crate never sees the prefix.
//!
//! `s3://` takes its endpoint, region and credentials from the standard AWS environment
//! variables (`AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_ALLOW_HTTP`...), as every AWS tool does.

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::prefix::PrefixStore;
use object_store::{ClientConfigKey, ObjectStore, RetryConfig};
use strata_runtime::IoRuntime;

use crate::error::{Error, Result};
use crate::store::BlockingStore;

/// Per-request timeout on S3. A WAL PUT is at most a few MiB; a request that takes longer
/// is treated as failed and retried (with the same bytes) by the caller's retry policy.
const S3_REQUEST_TIMEOUT: &str = "10s";
const S3_CONNECT_TIMEOUT: &str = "2s";

/// A parsed store URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// An S3-compatible bucket and a key prefix (possibly empty).
    S3 { bucket: String, prefix: String },
    /// A local directory.
    File { dir: String },
    /// An HDFS NameNode (`hdfs://HOST:PORT`) and a directory under it (possibly empty).
    Hdfs { namenode: String, dir: String },
    /// A fresh in-process store, for tests.
    Memory,
}

impl StoreUrl {
    /// Parses `url`; the error names it and says what is accepted.
    pub fn parse(url: &str) -> Result<StoreUrl> {
        let invalid = |why: &str| {
            Error::InvalidArgument(format!(
                "store URL {url:?}: {why} (expected s3://BUCKET/PREFIX, file:///DIR, hdfs://HOST:PORT/PATH or memory://)"
            ))
        };
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.len() < 3 {
                return Err(invalid("the bucket name needs at least 3 characters"));
            }
            let prefix = prefix.trim_matches('/').to_owned();
            Path::parse(&prefix).map_err(|e| invalid(&format!("bad prefix: {e}")))?;
            return Ok(StoreUrl::S3 {
                bucket: bucket.to_owned(),
                prefix,
            });
        }
        if let Some(dir) = url.strip_prefix("file://") {
            if !dir.starts_with('/') {
                return Err(invalid("a file URL needs an absolute path, file:///DIR"));
            }
            return Ok(StoreUrl::File {
                dir: dir.to_owned(),
            });
        }
        if let Some(rest) = url.strip_prefix("hdfs://") {
            let (authority, dir) = rest.split_once('/').unwrap_or((rest, ""));
            if authority.is_empty() {
                return Err(invalid(
                    "an HDFS URL needs its NameNode, hdfs://HOST:PORT/PATH",
                ));
            }
            let dir = dir.trim_matches('/').to_owned();
            Path::parse(&dir).map_err(|e| invalid(&format!("bad path: {e}")))?;
            return Ok(StoreUrl::Hdfs {
                namenode: format!("hdfs://{authority}"),
                dir,
            });
        }
        if url == "memory://" || url == "memory:///" {
            return Ok(StoreUrl::Memory);
        }
        Err(invalid("unknown scheme"))
    }
}

/// How a store is opened, beyond its URL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreOptions {
    /// Wait added before every PUT, GET (and HEAD), LIST and DELETE call: a simulated
    /// distant store, for benchmarks (`[cluster] store_latency_ms`). Zero adds nothing.
    pub added_latency: Duration,
}

/// Opens the store `url` names. Nothing is contacted yet: run [`crate::probe`] to find out
/// whether the store is reachable and safe.
pub fn open_store(url: &str) -> Result<BlockingStore> {
    open_store_with(url, StoreOptions::default())
}

/// [`open_store`] with `options`, on an I/O runtime of its own.
pub fn open_store_with(url: &str, options: StoreOptions) -> Result<BlockingStore> {
    let store = open_async(url, options)?;
    BlockingStore::new(store, url)
}

/// [`open_store`] with `options`, its calls driven by `runtime` (a server's shared one).
pub fn open_store_on(
    url: &str,
    options: StoreOptions,
    runtime: IoRuntime,
) -> Result<BlockingStore> {
    Ok(BlockingStore::on(open_async(url, options)?, url, runtime))
}

/// The async store `url` names, throttled by `options`.
fn open_async(url: &str, options: StoreOptions) -> Result<Arc<dyn ObjectStore>> {
    let store: Arc<dyn ObjectStore> = match StoreUrl::parse(url)? {
        StoreUrl::S3 { bucket, prefix } => with_prefix(open_s3(url, &bucket)?, &prefix),
        StoreUrl::File { dir } => Arc::new(open_dir(url, &dir)?),
        StoreUrl::Hdfs { namenode, dir } => with_prefix(crate::hdfs::open(url, &namenode)?, &dir),
        StoreUrl::Memory => Arc::new(InMemory::new()),
    };
    Ok(crate::latency::throttled(store, options.added_latency))
}

fn with_prefix(store: Arc<dyn ObjectStore>, prefix: &str) -> Arc<dyn ObjectStore> {
    if prefix.is_empty() {
        store
    } else {
        Arc::new(PrefixStore::new(store, prefix))
    }
}

fn open_s3(url: &str, bucket: &str) -> Result<Arc<dyn ObjectStore>> {
    // Timeouts go in as config keys: `with_client_options` would replace the client
    // options from_env read (AWS_ALLOW_HTTP among them).
    let client = |key| AmazonS3ConfigKey::Client(key);
    let mut builder = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_config(client(ClientConfigKey::Timeout), S3_REQUEST_TIMEOUT)
        .with_config(client(ClientConfigKey::ConnectTimeout), S3_CONNECT_TIMEOUT)
        // A couple of quick transport-level retries; the WAL's own policy (with the
        // injected clock) is the one that decides when a write has failed.
        .with_retry(RetryConfig {
            max_retries: 2,
            retry_timeout: Duration::from_secs(10),
            ..RetryConfig::default()
        });
    if std::env::var_os("AWS_REGION").is_none() && std::env::var_os("AWS_DEFAULT_REGION").is_none()
    {
        builder = builder.with_region("us-east-1");
    }
    let store = builder.build().map_err(|e| {
        Error::InvalidArgument(format!("store URL {url:?}: cannot configure S3: {e}"))
    })?;
    Ok(Arc::new(store))
}

fn open_dir(url: &str, dir: &str) -> Result<LocalFileSystem> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io {
        store: url.to_owned(),
        op: "create directory",
        path: dir.to_owned(),
        reason: e.to_string(),
    })?;
    LocalFileSystem::new_with_prefix(dir).map_err(|e| Error::Io {
        store: url.to_owned(),
        op: "open directory",
        path: dir.to_owned(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // real time and randomness in these tests
mod tests {
    use super::*;

    #[test]
    fn parses_the_schemes() {
        assert_eq!(
            StoreUrl::parse("s3://bucket/a/b/").unwrap(),
            StoreUrl::S3 {
                bucket: "bucket".into(),
                prefix: "a/b".into()
            }
        );
        assert_eq!(
            StoreUrl::parse("s3://bucket").unwrap(),
            StoreUrl::S3 {
                bucket: "bucket".into(),
                prefix: String::new()
            }
        );
        assert_eq!(
            StoreUrl::parse("file:///tmp/x").unwrap(),
            StoreUrl::File {
                dir: "/tmp/x".into()
            }
        );
        assert_eq!(
            StoreUrl::parse("hdfs://127.0.0.1:9000/strata/c1/").unwrap(),
            StoreUrl::Hdfs {
                namenode: "hdfs://127.0.0.1:9000".into(),
                dir: "strata/c1".into()
            }
        );
        assert_eq!(StoreUrl::parse("memory://").unwrap(), StoreUrl::Memory);
    }

    #[test]
    fn added_latency_delays_each_call() {
        let wait = Duration::from_millis(30);
        let store = open_store_with(
            "memory://",
            StoreOptions {
                added_latency: wait,
            },
        )
        .unwrap();
        let key = Path::from("k");
        // The store's runtime times the call, so the test needs no wall clock of its own.
        let elapsed = store.block_on(async {
            let start = tokio::time::Instant::now();
            let body = bytes::Bytes::from_static(b"v");
            crate::store::put_create_async(store.inner().as_ref(), &key, body)
                .await
                .unwrap();
            start.elapsed()
        });
        assert!(elapsed >= wait, "{elapsed:?}");
    }

    #[test]
    fn a_slowed_directory_reads_back_what_it_stored() {
        // object_store's throttle alone panics on a directory's file-handle answers.
        let dir = tempfile::tempdir().unwrap();
        let url = format!("file://{}", dir.path().display());
        let options = StoreOptions {
            added_latency: Duration::from_millis(1),
        };
        let store = open_store_with(&url, options).unwrap();
        let key = Path::from("a/k");
        store
            .put_create(&key, bytes::Bytes::from_static(b"value"))
            .unwrap();
        assert_eq!(store.get_range(&key, 1..4).unwrap().as_ref(), b"alu");
        assert_eq!(store.list(&Path::from("a")).unwrap().len(), 1);
    }

    #[test]
    fn errors_name_the_url() {
        for bad in [
            "s3://b/x",
            "file://relative",
            "gs://bucket/x",
            "s3://bucket/a//b",
            "hdfs:///x",
        ] {
            let err = StoreUrl::parse(bad).unwrap_err().to_string();
            assert!(err.contains(bad), "{err}");
        }
    }

    #[test]
    fn a_file_store_is_rooted_at_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("file://{}/sub", dir.path().display());
        let store = open_store(&url).unwrap();
        let key = Path::from("k");
        let outcome = store
            .put_create(&key, bytes::Bytes::from_static(b"v"))
            .unwrap();
        assert_eq!(outcome, crate::store::CreateOutcome::Created);
        assert!(dir.path().join("sub/k").exists());
    }
}
