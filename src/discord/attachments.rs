//! Files attached to the owner's messages (SPEC §5, §16): downloaded and typed by their magic
//! bytes (JPEG, PNG, GIF, WEBP) rather than by what Discord claims. Images go to the agent as
//! base64 image blocks; every other file is kept in `downloads/` in the data directory
//! ([`ollim_actors::conversation::downloads`]) and its path added to the message. A file above the size cap
//! (as Discord reports it, or as it turns out when fetched), or one that cannot be fetched or
//! kept, is named in the message as not saved, and the owner is told the same.

use base64::Engine as _;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::claude::brain::ImageBlock;
use ollim_actors::conversation::downloads::{self, MAX_DOWNLOAD_BYTES};
use serenity::all::Attachment;
use std::path::PathBuf;

/// Larger images are not sent to the model (it would refuse them anyway).
const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

/// What the attachments of one message became.
#[derive(Debug, Default)]
pub struct Received {
    /// Images for the agent.
    pub images: Vec<ImageBlock>,
    /// Other files, kept in `downloads/`.
    pub saved: Vec<PathBuf>,
    /// Files that were not kept, and why.
    pub not_kept: Vec<String>,
}

impl Received {
    /// The line for the agent naming the kept (and not kept) files, if any.
    pub fn note(&self) -> Option<String> {
        downloads::message_note(&self.saved, &self.not_kept)
    }
}

/// The media type the bytes actually are, when they are one of the four image kinds.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The image blocks of `bytes`, or `None` when they are not an image we can send.
pub fn image_block(bytes: &[u8]) -> Option<ImageBlock> {
    let media_type = sniff(bytes)?;
    Some(ImageBlock {
        media_type: media_type.to_owned(),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// `41943040` → `40.0 MB`.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

/// Why a file of `size` bytes is not kept, when it is above the cap.
fn too_large(name: &str, size: u64) -> Option<String> {
    (size > MAX_DOWNLOAD_BYTES).then(|| {
        format!(
            "{name} is larger than the {} MB limit ({})",
            MAX_DOWNLOAD_BYTES / (1024 * 1024),
            megabytes(size)
        )
    })
}

/// What one downloaded file becomes: an image block, or a file kept in `downloads/`.
fn take(data: &DataDir, name: &str, bytes: &[u8], into: &mut Received) {
    if let Some(why) = too_large(name, bytes.len() as u64) {
        tracing::info!(file = %name, size = bytes.len(), "attachment larger than Discord said; not kept");
        into.not_kept.push(why);
        return;
    }
    if bytes.len() <= MAX_IMAGE_BYTES {
        if let Some(block) = image_block(bytes) {
            into.images.push(block);
            return;
        }
    }
    match downloads::save(data, name, bytes) {
        Ok(path) => into.saved.push(path),
        Err(e) => {
            tracing::warn!(file = %name, cause = %e, "could not keep an attachment");
            into.not_kept
                .push(format!("{name} could not be stored ({e})"));
        }
    }
}

/// Downloads every attachment: images for the agent, other files into `downloads/`.
pub async fn receive(attachments: &[Attachment], data: &DataDir) -> Received {
    let mut out = Received::default();
    for a in attachments {
        if let Some(why) = too_large(&a.filename, u64::from(a.size)) {
            tracing::info!(file = %a.filename, size = a.size, "attachment too large; not downloaded");
            out.not_kept.push(why);
            continue;
        }
        match a.download().await {
            Ok(bytes) => take(data, &a.filename, &bytes, &mut out),
            Err(e) => {
                tracing::warn!(file = %a.filename, cause = %e, "could not download an attachment");
                out.not_kept
                    .push(format!("{} could not be downloaded", a.filename));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_comes_from_the_bytes_not_the_name() {
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0, 0]), Some("image/jpeg"));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(sniff(b"GIF89a.."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\x10\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(
            sniff(b"RIFF\x10\0\0\0WAVEfmt "),
            None,
            "a wav file is not an image"
        );
        assert_eq!(sniff(b"%PDF-1.7"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn images_go_to_the_agent_and_other_files_to_downloads() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let mut got = Received::default();
        take(&data, "cat.jpg", &[0xFF, 0xD8, 0xFF, 0xE0, 0], &mut got);
        take(&data, "fake.png", b"%PDF-1.7 not an image", &mut got);
        assert_eq!(got.images.len(), 1);
        assert_eq!(got.saved, [tmp.path().join("downloads/fake.png")]);
        assert_eq!(
            std::fs::read(&got.saved[0]).unwrap(),
            b"%PDF-1.7 not an image"
        );
        assert!(got.note().unwrap().contains("downloads/fake.png"));
    }

    #[test]
    fn a_file_larger_than_discord_said_is_not_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let mut got = Received::default();
        let big = vec![b'x'; MAX_DOWNLOAD_BYTES as usize + 1];
        take(&data, "big.log", &big, &mut got);
        assert!(got.saved.is_empty() && got.images.is_empty());
        assert_eq!(
            got.not_kept,
            ["big.log is larger than the 25 MB limit (25.0 MB)"]
        );
        assert!(!tmp.path().join("downloads").exists());
    }

    #[test]
    fn blocks_are_base64_of_the_bytes() {
        let block = image_block(b"GIF87a").expect("a gif");
        assert_eq!(block.media_type, "image/gif");
        assert_eq!(block.data, "R0lGODdh");
    }
}
