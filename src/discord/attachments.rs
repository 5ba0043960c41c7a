//! Images attached to the owner's messages (SPEC §5): downloaded, typed by their magic bytes
//! (JPEG, PNG, GIF, WEBP) rather than by what Discord claims, and handed to the agent as base64
//! image blocks. Anything else is skipped with a log line.

use base64::Engine as _;
use ollim_actors::brain::ImageBlock;
use serenity::all::Attachment;

/// Larger attachments are not downloaded (the model would refuse them anyway).
const MAX_IMAGE_BYTES: u32 = 20 * 1024 * 1024;

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

/// Downloads every attachment that is an image; failures and non-images are logged and skipped.
pub async fn images(attachments: &[Attachment]) -> Vec<ImageBlock> {
    let mut out = Vec::new();
    for a in attachments {
        if a.size > MAX_IMAGE_BYTES {
            tracing::info!(file = %a.filename, size = a.size, "attachment too large; skipped");
            continue;
        }
        match a.download().await {
            Ok(bytes) => match image_block(&bytes) {
                Some(block) => out.push(block),
                None => tracing::info!(file = %a.filename, "attachment is not an image; skipped"),
            },
            Err(e) => {
                tracing::warn!(file = %a.filename, cause = %e, "could not download an attachment")
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
    fn blocks_are_base64_of_the_bytes() {
        let block = image_block(b"GIF87a").expect("a gif");
        assert_eq!(block.media_type, "image/gif");
        assert_eq!(block.data, "R0lGODdh");
    }
}
