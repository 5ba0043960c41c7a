//! `send_file(file_path, message?, critical?)` (SPEC §16, §17; the older `path` and `caption`
//! are read too): a file from disk to the owner's DM. The file is
//! checked and read here, when the tool is called — it exists, is a regular file, fits
//! Discord's 25 MB, and for a background fork lies inside the data directory and pinging is
//! allowed — so what was checked is what is sent. The backend delivers it (a background fork
//! through its ping path: a file reaches the user like a ping does). A background fork need
//! not name the tool in its `allowed-tools`: like `discord_embed` it is one of its ways back
//! ([`super::BG_REPLY_TOOLS`]), and like a ping its words go out as `[bg] …` (`[bg]` alone
//! when it sent none).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::arguments::{ArgumentError, Reader};
use super::{bad_arguments, refuse, settle, Confirmation, DiscordTools, Refusal, ToolName};
use crate::claude::brain::mcp::ToolOutput;

/// A file the agent sends, read when the tool was called (what was checked is what is sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentFile {
    /// Where it was read, as an absolute path.
    pub path: PathBuf,
    /// The name it is sent under (the path's last part).
    pub name: String,
    /// Text sent with it.
    pub caption: Option<String>,
    /// A background fork's file skips the ping budget and the busy check.
    pub critical: bool,
    /// Its content.
    pub bytes: FileBytes,
}

/// A file's content, shared between the events that carry it; debug output shows its size only.
#[derive(Clone, PartialEq, Eq)]
pub struct FileBytes(pub Arc<Vec<u8>>);

impl std::fmt::Debug for FileBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{} bytes>", self.0.len())
    }
}

/// Discord's upload limit.
pub const MAX_FILE_BYTES: u64 = 25 * 1024 * 1024;

/// The longest caption (Discord's message limit).
const MAX_CAPTION_CHARS: usize = 2000;

/// `send_file`'s arguments: the path, the message sent with the file, critical.
fn args(arguments: &Value) -> Result<(String, Option<String>, bool), ArgumentError> {
    let reader = Reader::top(ToolName::SendFile, arguments)?;
    let path = reader
        .text(reader.renamed("file_path", "path"), 4096)?
        .trim()
        .to_owned();
    let field = reader.renamed("message", "caption");
    let caption = match reader.optional_string(field)? {
        Some(text) => Some(reader.within(field, text, MAX_CAPTION_CHARS)?.to_owned()),
        None => None,
    }
    .filter(|c| !c.trim().is_empty());
    Ok((path, caption, reader.flag("critical", false)?))
}

/// The path the model gave, made absolute: `~/` is the home directory, a relative path is
/// inside the data directory (the agent's working directory).
fn resolve(raw: &str, data_root: &Path) -> PathBuf {
    if let Some(rest) = raw.strip_prefix("~/") {
        if let Some(home) = std::env::var_os("HOME") {
            return PathBuf::from(home).join(rest);
        }
    }
    let path = Path::new(raw);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        data_root.join(path)
    }
}

/// Reads the file at `path` after the checks; `inside` restricts it to that directory.
async fn read_checked(path: &Path, inside: Option<&Path>) -> Result<SentFile, Refusal> {
    let shown = path.display().to_string();
    let meta = match tokio::fs::metadata(path).await {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Refusal::FileMissing(shown))
        }
        Err(e) => return Err(Refusal::FileUnreadable(e.to_string())),
    };
    if !meta.is_file() {
        return Err(Refusal::FileNotRegular(shown));
    }
    let real = tokio::fs::canonicalize(path)
        .await
        .map_err(|e| Refusal::FileUnreadable(e.to_string()))?;
    if let Some(root) = inside {
        let root = tokio::fs::canonicalize(root)
            .await
            .unwrap_or_else(|_| root.to_path_buf());
        if !real.starts_with(&root) {
            return Err(Refusal::FileOutsideDataDir);
        }
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Refusal::FileTooLarge(megabytes(meta.len())));
    }
    let bytes = tokio::fs::read(&real)
        .await
        .map_err(|e| Refusal::FileUnreadable(e.to_string()))?;
    // It may have grown since it was measured.
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Refusal::FileTooLarge(megabytes(bytes.len() as u64)));
    }
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    Ok(SentFile {
        path: real,
        name,
        caption: None,
        critical: false,
        bytes: FileBytes(Arc::new(bytes)),
    })
}

/// The words a background fork's file goes out with: `[bg] ` before its message, as a ping's.
fn background_caption(message: Option<&str>) -> String {
    match message {
        Some(text) => format!("[bg] {text}"),
        None => "[bg]".to_owned(),
    }
}

/// `26214401` → `25.0`.
fn megabytes(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1024.0 * 1024.0))
}

impl DiscordTools {
    /// `send_file(file_path, message?, critical?)`.
    pub(super) async fn send_file(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::SendFile;
        if let Some(rules) = self.kind.background() {
            if !rules.allow_ping {
                return refuse(tool, Refusal::PingingDisabled);
            }
        }
        if !self.kind.offers(super::offer::Tool::Discord(tool)) {
            return refuse(tool, Refusal::NotOffered(tool.qualified()));
        }
        let (raw, caption, critical) = match args(arguments) {
            Ok(args) => args,
            Err(error) => return bad_arguments(error),
        };
        let root = self.place.data_dir.root();
        let path = resolve(&raw, root);
        let inside = self.kind.background().map(|_| root);
        let mut file = match read_checked(&path, inside).await {
            Ok(file) => file,
            Err(refusal) => return refuse(tool, refusal),
        };
        file.caption = match self.kind.background() {
            Some(_) => Some(background_caption(caption.as_deref())),
            None => caption,
        };
        file.critical = critical;
        tracing::info!(file = %file.path.display(), bytes = file.bytes.0.len(), "agent sends a file");
        let result = self.backend.send_file(file).await;
        settle(tool, result, Confirmation::FileSent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_go_by_the_originals_names_and_the_older_ones() {
        use serde_json::json;
        assert_eq!(
            args(&json!({"file_path": "a.pdf", "message": "here", "critical": true})),
            Ok(("a.pdf".into(), Some("here".into()), true))
        );
        assert_eq!(
            args(&json!({"path": "b.pdf", "caption": "old"})),
            Ok(("b.pdf".into(), Some("old".into()), false))
        );
        assert!(args(&json!({"message": "no file"})).is_err());
    }

    #[test]
    fn paths_are_read_from_the_data_directory_unless_absolute() {
        let root = Path::new("/data");
        assert_eq!(
            resolve("notes/a.pdf", root),
            PathBuf::from("/data/notes/a.pdf")
        );
        assert_eq!(resolve("/tmp/b.txt", root), PathBuf::from("/tmp/b.txt"));
    }

    #[tokio::test]
    async fn missing_directories_large_and_outside_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        let missing = data.join("nope.txt");
        assert_eq!(
            read_checked(&missing, None).await,
            Err(Refusal::FileMissing(missing.display().to_string()))
        );
        assert_eq!(
            read_checked(&data, None).await,
            Err(Refusal::FileNotRegular(data.display().to_string()))
        );
        let big = data.join("big.bin");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        assert_eq!(
            read_checked(&big, None).await,
            Err(Refusal::FileTooLarge("25.0".into()))
        );
        let outside = tmp.path().join("outside.txt");
        std::fs::write(&outside, "x").unwrap();
        assert_eq!(
            read_checked(&outside, Some(&data)).await,
            Err(Refusal::FileOutsideDataDir)
        );
        // A link inside the directory that leads out is outside too.
        let link = data.join("link.txt");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert_eq!(
            read_checked(&link, Some(&data)).await,
            Err(Refusal::FileOutsideDataDir)
        );
        let ok = data.join("ok.txt");
        std::fs::write(&ok, "hello").unwrap();
        let file = read_checked(&ok, Some(&data)).await.unwrap();
        assert_eq!(file.name, "ok.txt");
        assert_eq!(file.bytes.0.as_slice(), b"hello");
    }

    /// The one file the backend received.
    fn only_file(backend: &super::super::recording_backend::Recording) -> SentFile {
        use super::super::recording_backend::BackendCall;
        match backend.calls().as_slice() {
            [BackendCall::SendFile(file)] => file.clone(),
            other => panic!("expected one file, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_background_forks_file_goes_out_with_the_bg_prefix_without_being_named() {
        use super::super::recording_backend::{call, workspace, Recording};
        use super::super::{BackgroundRules, SessionKind};
        use serde_json::json;
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("summary.txt"), "all quiet").unwrap();
        // The default rules: the job's `allowed-tools` name nothing.
        let background = || SessionKind::Background(BackgroundRules::default());
        for (args, caption) in [
            (
                json!({"file_path": "summary.txt", "message": "today's summary"}),
                "[bg] today's summary",
            ),
            (json!({"file_path": "summary.txt"}), "[bg]"),
        ] {
            let (tools, backend) = Recording::tools_in(background(), workspace(tmp.path()));
            let output = call(&tools, "send_file", args).await;
            assert_eq!(output, ToolOutput::ok("File sent."));
            assert_eq!(only_file(&backend).caption.as_deref(), Some(caption));
        }
        // The conversation's files carry its words as they are.
        let (tools, backend) = Recording::tools_in(SessionKind::Main, workspace(tmp.path()));
        call(
            &tools,
            "send_file",
            json!({"file_path": "summary.txt", "message": "here"}),
        )
        .await;
        assert_eq!(only_file(&backend).caption.as_deref(), Some("here"));
        // `allow-ping: false` still takes it away, critical or not.
        let silent = SessionKind::Background(BackgroundRules {
            allow_ping: false,
            ..BackgroundRules::default()
        });
        let (tools, backend) = Recording::tools_in(silent, workspace(tmp.path()));
        let args = json!({"file_path": "summary.txt", "critical": true});
        let output = call(&tools, "send_file", args).await;
        assert_ne!(output, ToolOutput::ok("File sent."));
        assert!(backend.calls().is_empty());
    }
}
