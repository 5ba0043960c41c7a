//! Just enough HTTP/1.1 for the mock: request heads, Content-Length and chunked bodies, JSON
//! responses.

use std::collections::BTreeMap;
use std::io;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// Reads the request line and headers; `None` at a clean end of the connection.
pub async fn read_head<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
) -> io::Result<Option<(String, BTreeMap<String, String>)>> {
    let mut line = String::new();
    if reader.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut headers = BTreeMap::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let header = line.trim_end();
        if header.is_empty() {
            return Ok(Some((path, headers)));
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
}

/// Reads a request body as the headers describe it.
pub async fn read_body<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    headers: &BTreeMap<String, String>,
) -> io::Result<Vec<u8>> {
    let chunked = headers
        .get("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if !chunked {
        let length = headers
            .get("content-length")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).await?;
        return Ok(body);
    }
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).await?;
        let size_text = line.trim().split(';').next().unwrap_or("0");
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        if size == 0 {
            // Trailers (usually none) end with an empty line.
            loop {
                line.clear();
                if reader.read_line(&mut line).await? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).await?;
        line.clear();
        reader.read_line(&mut line).await?;
    }
}

/// Sends a JSON response with a Content-Length.
pub async fn send_json<W: AsyncWriteExt + Unpin>(
    write: &mut W,
    status: u16,
    body: &Value,
) -> io::Result<()> {
    let text = body.to_string();
    let reason = if status == 200 { "OK" } else { "Bad Request" };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        text.len()
    );
    write.write_all(head.as_bytes()).await?;
    write.write_all(text.as_bytes()).await?;
    write.flush().await
}
