//! The harness's error type. Targets wrap their own errors into `Target` so the harness never
//! needs to know which storage system produced them.

/// Anything that stops a benchmark run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The system under test failed an operation.
    #[error("{target}: {source}")]
    Target {
        target: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The harness itself failed to prepare or clean a database directory.
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The flags describe a run that cannot be done.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A worker thread panicked; its partial results are lost.
    #[error("a worker thread panicked")]
    WorkerPanicked,
    /// The OS refused a worker thread.
    #[error("cannot start a worker thread: {0}")]
    ThreadStart(#[source] std::io::Error),
    /// A phase ended before it began because one of its workers could not be started.
    #[error("the phase was called off")]
    CalledOff,
}

impl BenchError {
    /// Wraps an error of the system named `target`.
    pub fn target(
        target: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        BenchError::Target {
            target: target.into(),
            source: source.into(),
        }
    }

    /// Wraps an I/O error on `path`.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        BenchError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// The harness's result type.
pub type BenchResult<T> = Result<T, BenchError>;
