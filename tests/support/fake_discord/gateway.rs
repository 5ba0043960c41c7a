//! The fake Discord gateway: a `ws://` server speaking the v10 protocol in text JSON frames.
//! HELLO, then IDENTIFY answered by READY (or by the close code the test asked for),
//! heartbeats acknowledged, RESUME refused with an invalid session (op 9, not resumable) so
//! serenity identifies afresh. The newest identified connection is the current one: every
//! dispatch goes there with a sequence number rising per connection.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parking_lot::Mutex;
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::WebSocketStream;

use super::objects;
use super::state::{Outbound, Session, State};

type Ws = WebSocketStream<TcpStream>;

/// Accepts gateway connections until the task is dropped.
pub async fn serve(listener: TcpListener, state: Arc<Mutex<State>>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(stream, Arc::clone(&state)));
    }
}

/// Writes one frame and remembers it for [`super::FakeDiscord::gateway_frames`].
async fn send(ws: &mut Ws, state: &Mutex<State>, frame: &Value) -> bool {
    state.lock().frames.push(frame.clone());
    ws.send(WsMessage::Text(frame.to_string())).await.is_ok()
}

/// Closes with `code` and waits (briefly) for the peer's answer.
async fn close(ws: &mut Ws, code: u16, reason: &str) {
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: Cow::Owned(reason.to_owned()),
    };
    let _ = ws.send(WsMessage::Close(Some(frame))).await;
    let drain = async { while let Some(Ok(_)) = ws.next().await {} };
    let _ = tokio::time::timeout(Duration::from_secs(5), drain).await;
}

/// One gateway connection, from HELLO to its end.
async fn connection(stream: TcpStream, state: Arc<Mutex<State>>) {
    let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
        return;
    };
    let (conn, interval) = {
        let mut s = state.lock();
        s.next_conn += 1;
        (s.next_conn, s.opts.heartbeat_interval_ms)
    };
    let hello = json!({ "op": 10, "d": { "heartbeat_interval": interval }, "s": null, "t": null });
    if !send(&mut ws, &state, &hello).await {
        return;
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<Outbound>();
    let mut seq: u64 = 0;
    let mut identified = false;
    loop {
        tokio::select! {
            incoming = ws.next() => {
                let text = match incoming {
                    Some(Ok(WsMessage::Text(t))) => t,
                    Some(Ok(WsMessage::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
                    Some(Ok(WsMessage::Close(_))) => {
                        // Sends the close reply tungstenite queued, as Discord answers.
                        let _ = ws.close(None).await;
                        break;
                    }
                    Some(Err(_)) | None => break,
                    Some(Ok(_)) => continue,
                };
                let Ok(frame) = serde_json::from_str::<Value>(&text) else {
                    close(&mut ws, 4002, "Error while decoding payload.").await;
                    break;
                };
                match frame["op"].as_u64() {
                    Some(1) => {
                        state.lock().heartbeats += 1;
                        if !send(&mut ws, &state, &json!({ "op": 11, "d": null, "s": null, "t": null })).await {
                            break;
                        }
                    }
                    Some(2) if identified => {
                        close(&mut ws, 4005, "Already authenticated.").await;
                        break;
                    }
                    Some(2) => {
                        let refuse = {
                            let mut s = state.lock();
                            s.identifies.push(frame["d"].clone());
                            s.opts
                                .close_code_after_identify
                                .or(s.opts.reject_token.then_some(4004))
                        };
                        if let Some(code) = refuse {
                            close(&mut ws, code, "Refused by the fake Discord.").await;
                            break;
                        }
                        identified = true;
                        seq += 1;
                        let url = state.lock().gateway_url.clone();
                        let ready = objects::ready(&format!("fake-session-{conn}"), &url);
                        let frame = json!({ "op": 0, "t": "READY", "s": seq, "d": ready });
                        // Counted before it is sent: a client may handle READY (and a test
                        // read the count) before `send` returns here. Dispatches queued for
                        // the session go out on this loop, so after READY all the same.
                        {
                            let mut s = state.lock();
                            s.ready_count += 1;
                            s.current = Some(Session { conn, tx: tx.clone() });
                        }
                        if !send(&mut ws, &state, &frame).await {
                            break;
                        }
                    }
                    Some(6) => {
                        // Resuming is not supported: tell serenity to identify again.
                        if !send(&mut ws, &state, &json!({ "op": 9, "d": false, "s": null, "t": null })).await {
                            break;
                        }
                    }
                    Some(3 | 4 | 8 | 31) => {}
                    _ => {
                        close(&mut ws, 4001, "Unknown opcode.").await;
                        break;
                    }
                }
            }
            out = rx.recv() => {
                let frame = match out {
                    Some(Outbound::Dispatch { t, d }) => {
                        seq += 1;
                        json!({ "op": 0, "t": t, "s": seq, "d": d })
                    }
                    Some(Outbound::Frame(v)) => v,
                    None => continue,
                };
                if !send(&mut ws, &state, &frame).await {
                    break;
                }
            }
        }
    }
    let mut s = state.lock();
    if s.current.as_ref().is_some_and(|c| c.conn == conn) {
        s.current = None;
    }
}
