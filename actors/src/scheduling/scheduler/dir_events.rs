//! Which entries of a job directory may have changed since the last look, from the kernel's
//! file events (inotify), so the registry re-checks those few instead of every file at every
//! fire.
//!
//! The feed is trusted only while it is whole. An overflowed event queue, a failed read, an
//! event about the directory itself (deleted, moved, unmounted) or another directory now at its
//! path all answer [`Since::Unknown`], and the registry lists the whole directory again (and
//! starts a new feed first, so nothing that happens during that listing is missed). Where
//! there is no inotify — another system, or the per-user limit of instances reached — there is
//! no feed and every look is a full listing, as before.
//!
//! Events are read without blocking and only when the registry looks, so nothing runs in the
//! background: a write that finished before the look is always in the queue by then.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::Path;

/// What changed since the last look.
#[derive(Debug, PartialEq, Eq)]
pub enum Since {
    /// Only these entry names may have changed (none: nothing did).
    Names(HashSet<OsString>),
    /// Anything may have: list the directory.
    Unknown,
}

#[cfg(target_os = "linux")]
mod feed {
    use std::collections::HashSet;
    use std::ffi::OsStr;
    use std::mem::MaybeUninit;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use rustix::fs::inotify::{self, CreateFlags, Reader, WatchFlags};
    use rustix::io::Errno;

    use super::Since;

    /// A directory's identity: another directory put at the path has another.
    fn identity(dir: &Path) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(dir).ok().map(|m| (m.dev(), m.ino()))
    }

    /// Room for a few hundred events per read; the reader loops until the queue is empty.
    const BUFFER: usize = 64 * 1024;

    /// A live inotify watch on one directory.
    pub struct Feed {
        fd: OwnedFd,
        dir_id: (u64, u64),
        buf: Vec<MaybeUninit<u8>>,
    }

    impl Feed {
        /// Watches `dir`, or says why it cannot.
        pub fn start(dir: &Path) -> Result<Self, Errno> {
            let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?;
            let flags = WatchFlags::CREATE
                | WatchFlags::DELETE
                | WatchFlags::MODIFY
                | WatchFlags::CLOSE_WRITE
                | WatchFlags::ATTRIB
                | WatchFlags::MOVED_FROM
                | WatchFlags::MOVED_TO
                | WatchFlags::DELETE_SELF
                | WatchFlags::MOVE_SELF
                | WatchFlags::ONLYDIR;
            inotify::add_watch(&fd, dir, flags)?;
            // Taken after the watch is in place: a directory swapped in between reads as
            // another one at the first look, never as this one.
            let dir_id = identity(dir).ok_or(Errno::NOENT)?;
            Ok(Self {
                fd,
                dir_id,
                buf: vec![MaybeUninit::uninit(); BUFFER],
            })
        }

        /// Everything queued since the last call.
        pub fn drain(&mut self, dir: &Path) -> Since {
            let mut names = HashSet::new();
            let mut whole = true;
            let mut reader = Reader::new(&self.fd, &mut self.buf);
            loop {
                match reader.next() {
                    Ok(event) => match event.file_name() {
                        Some(name) => {
                            names.insert(OsStr::from_bytes(name.to_bytes()).to_os_string());
                        }
                        // About the directory itself, or the queue overflowed.
                        None => whole = false,
                    },
                    Err(Errno::AGAIN) => break,
                    Err(Errno::INTR) => continue,
                    Err(e) => {
                        tracing::warn!(dir = %dir.display(), cause = %e, "cannot read the job directory's file events; listing it whole");
                        whole = false;
                        break;
                    }
                }
            }
            if whole && identity(dir) == Some(self.dir_id) {
                Since::Names(names)
            } else {
                Since::Unknown
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod feed {
    use std::path::Path;

    use super::Since;

    /// No event feed on this system: every look is a full listing.
    pub struct Feed;

    impl Feed {
        pub fn start(_dir: &Path) -> Result<Self, &'static str> {
            Err("no inotify on this system")
        }

        pub fn drain(&mut self, _dir: &Path) -> Since {
            Since::Unknown
        }
    }
}

/// The change feed of one directory, restarted whenever it stops being whole.
pub struct DirEvents {
    feed: Option<feed::Feed>,
    /// The reason last logged for having no feed (logged once per reason).
    unavailable: Option<String>,
}

impl std::fmt::Debug for DirEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirEvents")
            .field("live", &self.feed.is_some())
            .finish()
    }
}

impl DirEvents {
    /// No feed yet: the first look is a full listing.
    pub fn new() -> Self {
        Self {
            feed: None,
            unavailable: None,
        }
    }

    /// What changed in `dir` since the last look. After [`Since::Unknown`] the caller lists
    /// the directory whole, having called [`DirEvents::restart`] first.
    pub fn since_last(&mut self, dir: &Path) -> Since {
        match &mut self.feed {
            Some(feed) => {
                let since = feed.drain(dir);
                if since == Since::Unknown {
                    self.feed = None;
                }
                since
            }
            None => Since::Unknown,
        }
    }

    /// Drops the feed: the next look is a full listing.
    pub fn stop(&mut self) {
        self.feed = None;
    }

    /// Starts a new feed on `dir` (before it is listed whole). Without one, the next look is
    /// a full listing again.
    pub fn restart(&mut self, dir: &Path) {
        match feed::Feed::start(dir) {
            Ok(feed) => {
                self.feed = Some(feed);
                self.unavailable = None;
            }
            Err(e) => {
                self.feed = None;
                let reason = e.to_string();
                if self.unavailable.as_deref() != Some(reason.as_str()) {
                    tracing::debug!(dir = %dir.display(), cause = %reason, "no file events for the job directory; listing it at every look");
                }
                self.unavailable = Some(reason);
            }
        }
    }

    /// Whether a feed is live (tests).
    #[cfg(test)]
    pub fn is_live(&self) -> bool {
        self.feed.is_some()
    }
}

impl Default for DirEvents {
    fn default() -> Self {
        Self::new()
    }
}
