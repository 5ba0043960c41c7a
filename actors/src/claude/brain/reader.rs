//! The stdout reader of one process (protocol reference §4, §16): splits stdout into lines (only on
//! `\n`, with a size cap), skips anything that is not a JSON object, routes control traffic to
//! [`Control`] and turns every other frame into [`BrainEvent`]s. At end of input it fails all pending
//! requests, waits for the exit status and the last stderr lines, and reports
//! [`BrainEvent::Exited`] as the final event.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, BufReader};
use tokio::process::ChildStdout;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::control::Control;
use super::event_parser::EventParser;
use super::events::{BrainEvent, ExitInfo};
use super::process::StderrTail;

/// Longest stdout line we accept; longer ones are logged and skipped.
const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;
/// How long the reader waits for stderr to close after stdout did.
const STDERR_DRAIN: Duration = Duration::from_secs(2);

/// What the reader task needs.
pub struct ReaderParts {
    /// The process label for logs.
    pub label: String,
    /// The child's stdout.
    pub stdout: ChildStdout,
    /// Where control traffic goes.
    pub control: Arc<Control>,
    /// Where events go.
    pub events: mpsc::UnboundedSender<BrainEvent>,
    /// Publishes the exit status once the child is gone.
    pub exit: watch::Receiver<Option<ExitInfo>>,
    /// The stderr logger, awaited (briefly) so the tail is complete.
    pub stderr_task: JoinHandle<()>,
    /// The last stderr lines.
    pub tail: StderrTail,
}

/// Reads stdout until it closes; see the module docs.
pub async fn read_frames(parts: ReaderParts) {
    let ReaderParts {
        label,
        stdout,
        control,
        events,
        mut exit,
        stderr_task,
        tail,
    } = parts;
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    let mut parser = EventParser::default();
    loop {
        match read_capped_line(&mut reader, &mut buf, MAX_LINE_BYTES).await {
            Ok(Line::Complete) => {}
            Ok(Line::TooLong) => {
                tracing::warn!(label = %label, limit = MAX_LINE_BYTES, "oversized stdout line skipped");
                continue;
            }
            Ok(Line::Eof) => break,
            Err(err) => {
                tracing::warn!(label = %label, cause = %err, "reading claude stdout failed");
                break;
            }
        }
        let text = buf.trim_ascii();
        if !text.starts_with(b"{") {
            tracing::debug!(label = %label, line = %String::from_utf8_lossy(text), "non-json stdout line skipped");
            continue;
        }
        let frame: Value = match serde_json::from_slice(text) {
            Ok(frame) => frame,
            Err(err) => {
                tracing::warn!(label = %label, cause = %err, "unparsable stdout frame skipped");
                continue;
            }
        };
        route(&control, &mut parser, &events, frame);
    }
    control.fail_all();
    let status = exit
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|info| info.clone())
        .unwrap_or_default();
    let _ = tokio::time::timeout(STDERR_DRAIN, stderr_task).await;
    let info = ExitInfo {
        stderr_tail: tail.lock().iter().cloned().collect(),
        ..status
    };
    let _ = events.send(BrainEvent::Exited(info));
}

fn route(
    control: &Arc<Control>,
    parser: &mut EventParser,
    events: &mpsc::UnboundedSender<BrainEvent>,
    frame: Value,
) {
    let request_id = |frame: &Value| frame["request_id"].as_str().unwrap_or("").to_owned();
    match frame.get("type").and_then(Value::as_str) {
        Some("control_response") => control.on_response(&frame["response"]),
        Some("control_request") => {
            let id = request_id(&frame);
            let request = frame.get("request").cloned().unwrap_or(Value::Null);
            control.on_request(id, request);
        }
        Some("control_cancel_request") => control.on_cancel(&request_id(&frame)),
        _ => {
            for event in parser.parse(frame) {
                // The owner may have stopped listening; the process still has to be served.
                let _ = events.send(event);
            }
        }
    }
}

/// What one call of [`read_capped_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line (without its `\n`) is in the buffer.
    Complete,
    /// A line longer than the cap was read and thrown away.
    TooLong,
    /// End of input.
    Eof,
}

/// Reads up to the next `\n` into `buf`, never holding more than `cap` bytes of one line.
async fn read_capped_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut seen_any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (seen_any, too_long) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong,
                (true, false) => Line::Complete,
            });
        }
        seen_any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !too_long && buf.len() + chunk.len() > cap {
            too_long = true;
            buf.clear();
        }
        if !too_long {
            buf.extend_from_slice(chunk);
        }
        let used = newline.map_or(available.len(), |at| at + 1);
        reader.consume(used);
        if newline.is_some() {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    async fn lines(input: &[u8], cap: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let line = read_capped_line(&mut reader, &mut buf, cap).await.unwrap();
            if line == Line::Eof {
                return out;
            }
            out.push((line, buf.clone()));
        }
    }

    #[tokio::test]
    async fn lines_split_only_on_newline_across_buffer_boundaries() {
        let got = lines(b"{\"a\":1}\n{\"b\":22}\nlast", 100).await;
        assert_eq!(
            got,
            vec![
                (Line::Complete, b"{\"a\":1}".to_vec()),
                (Line::Complete, b"{\"b\":22}".to_vec()),
                (Line::Complete, b"last".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn oversized_line_is_skipped_and_the_next_one_read() {
        let got = lines(b"0123456789abcdef\nok\n", 8).await;
        assert_eq!(
            got,
            vec![
                (Line::TooLong, Vec::new()),
                (Line::Complete, b"ok".to_vec())
            ]
        );
    }

    #[test]
    fn control_frames_never_reach_the_owner() {
        let (tx, _rx) = mpsc::unbounded_channel::<String>();
        let handlers = crate::claude::brain::Handlers {
            host: Arc::new(crate::claude::brain::host::DenyAll),
            tools: Arc::new(crate::claude::brain::mcp::NoTools),
        };
        let control = Control::new(
            "t".into(),
            tx,
            handlers,
            "discord".into(),
            Duration::from_secs(1),
        );
        let (events_tx, mut events_rx) = mpsc::unbounded_channel();
        let mut parser = EventParser::default();
        let frame =
            json!({"type":"control_response","response":{"subtype":"success","request_id":"x"}});
        route(&control, &mut parser, &events_tx, frame);
        route(
            &control,
            &mut parser,
            &events_tx,
            json!({"type":"control_cancel_request","request_id":"y"}),
        );
        assert!(events_rx.try_recv().is_err());
        route(
            &control,
            &mut parser,
            &events_tx,
            json!({"type":"system","subtype":"init","session_id":"s"}),
        );
        assert!(matches!(events_rx.try_recv(), Ok(BrainEvent::Init { .. })));
    }
}
