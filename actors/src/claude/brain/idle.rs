//! Test support: a [`Launcher`] whose processes accept every request and never say anything,
//! so a session actor's own logic (its mailbox, its peers) can be tested without a CLI.

use tokio::sync::mpsc;

use super::{
    BoxFuture, Driver, Error, ExitInfo, Handlers, InitializeInfo, Launched, Launcher,
    PermissionMode, SpawnOptions, UserMessage,
};

/// Launches [`IdleDriver`]s.
pub struct IdleLauncher;

/// A process that takes messages and stays silent; its event stream stays open until shutdown.
pub struct IdleDriver {
    /// Keeps the event stream open.
    _events: mpsc::UnboundedSender<super::BrainEvent>,
}

impl Launcher for IdleLauncher {
    fn launch(
        &self,
        _options: SpawnOptions,
        _handlers: Handlers,
    ) -> BoxFuture<'_, Result<Launched, Error>> {
        let (tx, rx) = mpsc::unbounded_channel();
        Box::pin(async move {
            Ok(Launched {
                driver: Box::new(IdleDriver { _events: tx }),
                events: rx,
                init: InitializeInfo::default(),
            })
        })
    }
}

impl Driver for IdleDriver {
    fn send_user(&self, _message: UserMessage) -> BoxFuture<'_, Result<String, Error>> {
        Box::pin(async { Ok(uuid::Uuid::new_v4().to_string()) })
    }

    fn interrupt(&self) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async { Ok(()) })
    }

    fn set_model(&self, _model: Option<String>) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async { Ok(()) })
    }

    fn set_permission_mode(&self, _mode: PermissionMode) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async { Ok(()) })
    }

    fn shutdown(self: Box<Self>) -> BoxFuture<'static, ExitInfo> {
        Box::pin(async {
            ExitInfo {
                code: Some(0),
                signal: None,
                stderr_tail: Vec::new(),
            }
        })
    }
}
