//! Rendering what the conversation sends to the terminal: text streams in place, everything
//! else gets a line of its own.

use std::io::Write;

use actix::prelude::*;
use ollim_actors::surface::SurfaceEvent;

/// Writes the DM channel to stdout.
#[derive(Default)]
pub struct ConsoleOut {
    /// Text of the current answer has been printed without its final newline.
    mid_line: bool,
    /// Something of the current answer has streamed.
    streamed: bool,
}

/// A plain line from the console itself (command replies).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Line(pub String);

impl Actor for ConsoleOut {
    type Context = Context<Self>;
}

fn write(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) is not an error worth dying for.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

impl ConsoleOut {
    fn own_line(&mut self, text: &str) {
        if self.mid_line {
            write("\n");
            self.mid_line = false;
        }
        write(&format!("{text}\n"));
    }
}

impl Handler<SurfaceEvent> for ConsoleOut {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
        match ev {
            SurfaceEvent::Status(s) => {
                if !self.streamed {
                    self.own_line(&format!("-# *{s}*"));
                }
            }
            SurfaceEvent::TextDelta(t) => {
                write(&t);
                self.streamed = true;
                self.mid_line = !t.ends_with('\n');
            }
            SurfaceEvent::Reply(text) => {
                if self.streamed {
                    if self.mid_line {
                        write("\n");
                    }
                } else {
                    write(&format!("{text}\n"));
                }
                self.mid_line = false;
                self.streamed = false;
            }
            SurfaceEvent::Notice(s) | SurfaceEvent::Error(s) => self.own_line(&s),
        }
    }
}

impl Handler<Line> for ConsoleOut {
    type Result = ();
    fn handle(&mut self, Line(text): Line, _ctx: &mut Self::Context) {
        self.own_line(&text);
    }
}
