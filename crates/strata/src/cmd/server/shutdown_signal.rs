//! Waiting for the signal that stops the server.

/// SIGTERM or SIGINT, listened for from its creation on. A listener created only when the
/// server is ready to wait would miss a signal that came while it was busy (opening,
/// taking over as master): a cluster test's SIGTERM during an election went unnoticed.
pub(crate) struct ShutdownSignal {
    term: Option<tokio::signal::unix::Signal>,
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl ShutdownSignal {
    /// Starts listening (inside the runtime).
    pub(crate) fn listen() -> Self {
        use tokio::signal::unix::{signal, SignalKind};
        ShutdownSignal {
            term: signal(SignalKind::terminate()).ok(),
            interrupt: signal(SignalKind::interrupt()).ok(),
        }
    }

    /// Waits for a signal (at once if one came since `listen`).
    pub(crate) async fn wait(&mut self) {
        async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
            match signal {
                Some(signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            _ = next(&mut self.term) => {}
            _ = next(&mut self.interrupt) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A signal that comes before anyone waits is still seen: the regression was a SIGTERM
    /// during a master election that the server, waiting only afterwards, never noticed.
    #[test]
    fn a_signal_before_the_wait_is_not_lost() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut shutdown = ShutdownSignal::listen();
            let status = std::process::Command::new("kill")
                .args(["-TERM", &std::process::id().to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            // Busy for a while before waiting, as a server taking over is.
            #[allow(clippy::disallowed_methods)]
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            tokio::time::timeout(std::time::Duration::from_secs(5), shutdown.wait())
                .await
                .expect("the SIGTERM sent before the wait is seen");
        });
    }
}
