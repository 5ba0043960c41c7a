//! The conversation's line of turns ([`TurnLine`]: the turns in flight, the lines waiting,
//! what the last result left) and driving it: sending lines, interrupting (starting the process
//! is in `launch`, what happens when a turn's result comes in `turn_end`, its stream of events
//! in `brain_events`).

use std::collections::VecDeque;

use actix::prelude::*;
use tokio::sync::oneshot;

use super::job_turns::{JobTurnEnd, JobTurnOutcome, JobTurns};
use super::turn::{Turn, TurnKind};
use super::MainSession;
use crate::claude::brain::{ImageBlock, TurnResult, UserMessage};
use crate::conversation::surface::SurfaceEvent;

/// A line ready to send.
#[derive(Debug, Clone)]
pub(super) struct Outgoing {
    /// What is sent.
    pub(super) text: String,
    /// The images sent with it.
    pub(super) images: Vec<ImageBlock>,
    /// What kind of turn it starts.
    pub(super) kind: TurnKind,
    /// Sent once already (after a compaction that swallowed it, or an interrupt that took it).
    pub(super) resent: bool,
    /// The foreground job this line runs, answered when its turn ends.
    pub(super) job: Option<u64>,
    /// *(ours)* The snooze the answer's buttons press (a foreground reminder's turn).
    pub(super) snooze: Option<String>,
}

impl Outgoing {
    /// A line the session itself sends (a command, an intro, a nudge, a flush): no images,
    /// no job, no snooze.
    pub(super) fn own(text: String, kind: TurnKind) -> Self {
        Outgoing {
            text,
            images: Vec::new(),
            kind,
            resent: false,
            job: None,
            snooze: None,
        }
    }
}

/// The conversation's line of turns: those in flight and the lines waiting, the foreground jobs
/// and `/compact`s waiting for theirs to end, and what the turns so far have left behind.
#[derive(Default)]
pub(super) struct TurnLine {
    /// The turns sent to the process and not yet ended, oldest first.
    pub(super) inflight: VecDeque<Turn>,
    /// The lines waiting to be sent, next first.
    pub(super) waiting: VecDeque<Outgoing>,
    /// The last turn's result (`/cost`).
    pub(super) last_result: Option<TurnResult>,
    /// The process generation and the CLI's running `total_cost_usd` after its last turn: a
    /// turn's own cost is the difference (a new process starts again from zero).
    pub(super) usage_base: Option<(u64, f64)>,
    /// The tokens of the last model call of the last answered turn (the context's size).
    pub(super) last_context: Option<u64>,
    /// Messages sent since the last `/compact` or `/clear`.
    pub(super) since_compact: u32,
    /// `/compact`s waiting for their report (dropped, they say the compaction stopped).
    pub(super) compact_replies: Vec<oneshot::Sender<String>>,
    /// Foreground jobs waiting for their turn to end.
    pub(super) jobs: JobTurns,
}

impl TurnLine {
    /// A turn is in flight or a line waits.
    pub(super) fn busy(&self) -> bool {
        !self.inflight.is_empty() || !self.waiting.is_empty()
    }

    /// `out` has to wait rather than interrupt what is in flight: it runs a job, or a
    /// compaction, a memory flush or a job's turn is in flight, or a line of the owner's
    /// already waits.
    fn holds_back(&self, out: &Outgoing) -> bool {
        // A compaction or a memory flush is never interrupted: what comes waits for it.
        let compacting = self
            .inflight
            .iter()
            .any(|t| t.compacting || matches!(t.kind, TurnKind::Flush(_)));
        let job_running = self.inflight.iter().any(|t| t.job.is_some());
        let owner_waiting = self.waiting.iter().any(|w| w.job.is_none());
        out.job.is_some() || compacting || job_running || owner_waiting
    }

    /// Queues `out`: a job's line at the end, the owner's line after the owner's lines already
    /// waiting and before the jobs (a line re-sent after a compaction keeps its place in front).
    pub(super) fn enqueue(&mut self, out: Outgoing) {
        if out.job.is_some() {
            self.waiting.push_back(out);
            return;
        }
        let at = self
            .waiting
            .iter()
            .position(|w| w.job.is_some() && !w.resent)
            .unwrap_or(self.waiting.len());
        self.waiting.insert(at, out);
    }

    /// A memory flush is queued or in flight.
    pub(super) fn flushing(&self) -> bool {
        let is_flush = |k: TurnKind| matches!(k, TurnKind::Flush(_));
        self.inflight.iter().any(|t| is_flush(t.kind))
            || self.waiting.iter().any(|w| is_flush(w.kind))
    }

    /// Clears the turns in flight, answering their jobs as failed for `why` (and a waiting
    /// `/compact` that it stopped).
    pub(super) fn end_in_flight(&mut self, why: &str) {
        self.compact_replies.clear();
        for t in self.inflight.drain(..) {
            self.jobs.answer(
                t.job,
                JobTurnEnd::bare(JobTurnOutcome::Failed, why.to_owned()),
            );
        }
    }

    /// Drops the waiting lines, answering their jobs as failed for `why`.
    pub(super) fn fail_waiting(&mut self, why: &str) {
        for out in self.waiting.drain(..) {
            self.jobs.answer(
                out.job,
                JobTurnEnd::bare(JobTurnOutcome::Failed, why.to_owned()),
            );
        }
    }

    /// Marks the lines in flight that the CLI says it took into a turn: those whose uuid it
    /// names, and those whose text a replayed line holds (a release that merged several of ours
    /// replays them as one line under a uuid of its own).
    pub(super) fn note_taken(&mut self, uuids: &[String], text: Option<&str>) {
        for t in self.inflight.iter_mut() {
            let named = uuids.contains(&t.uuid);
            let replayed =
                text.is_some_and(|text| !t.sent_text.is_empty() && text.contains(&t.sent_text));
            if named || replayed {
                t.taken = true;
            }
        }
    }

    /// Takes the turns `result` ended out of those in flight: the one that carries what the
    /// user sees, and the lines the CLI merged into it (newest first). The CLI merges lines
    /// sent during a busy turn into one turn: every turn the result names is over, and the last
    /// of them carries the answer (and a reminder's snooze from any of them). A result that
    /// names none (2.1.197's) ends the lines the CLI said it took in; when it said nothing of
    /// them either, the oldest.
    pub(super) fn take_answered(&mut self, result: &TurnResult) -> Option<(Turn, Vec<Turn>)> {
        let named: Vec<usize> = self
            .inflight
            .iter()
            .enumerate()
            .filter(|(_, t)| result.user_message_uuids.contains(&t.uuid))
            .map(|(i, _)| i)
            .collect();
        let answered = if named.is_empty() {
            self.inflight
                .iter()
                .enumerate()
                .filter(|(_, t)| t.taken)
                .map(|(i, _)| i)
                .collect()
        } else {
            named
        };
        let mut merged = Vec::new();
        let turn = if answered.is_empty() {
            self.inflight.pop_front()
        } else {
            let mut last: Option<Turn> = None;
            let mut snooze = None;
            for i in answered.into_iter().rev() {
                let t = self.inflight.remove(i);
                snooze = snooze.or_else(|| t.as_ref().and_then(|t| t.snooze.clone()));
                if last.is_none() {
                    last = t;
                } else {
                    merged.extend(t);
                }
            }
            // Lines merged into one turn: a reminder's snooze stays with the answer.
            last.map(|mut t| {
                t.snooze = snooze;
                t
            })
        };
        turn.map(|turn| (turn, merged))
    }

    /// The cost of the turn `result` ended on process `generation`: how much the CLI's running
    /// `total_cost_usd` grew since the same process's previous result (a new process starts
    /// from zero). Remembers the total for the next turn.
    pub(super) fn turn_cost(&mut self, generation: u64, result: &TurnResult) -> Option<f64> {
        let before = match self.usage_base {
            Some((base_generation, total)) if base_generation == generation => total,
            _ => 0.0,
        };
        let cost_usd = result.total_cost_usd.map(|total| (total - before).max(0.0));
        if let Some(total) = result.total_cost_usd {
            self.usage_base = Some((generation, total));
        }
        cost_usd
    }

    /// `/cost`'s answer: the process's cost so far and the last turn's tokens.
    pub(super) fn cost_line(&self) -> String {
        match &self.last_result {
            None => "no turns yet in this run.".to_owned(),
            Some(r) => format!(
                "cost this run: ${:.4} · last turn: {} in / {} out tokens",
                r.total_cost_usd.unwrap_or(0.0),
                r.usage.input_tokens
                    + r.usage.cache_read_input_tokens
                    + r.usage.cache_creation_input_tokens,
                r.usage.output_tokens
            ),
        }
    }
}

impl MainSession {
    pub(super) fn show(&self, event: SurfaceEvent) {
        self.surface.do_send(event);
    }

    /// Sends `out` or queues it (SPEC §5, §17). A foreground job's line never interrupts: it
    /// waits behind the turn in progress and the lines queued before it, so overdue jobs each
    /// get their whole turn in fire order. The owner's line interrupts the owner's own answer in
    /// progress (not a compaction, whose reply an interrupt would kill); during a job's turn it
    /// waits, ahead of the jobs still queued, and is answered right after that turn.
    pub(super) fn submit(&mut self, out: Outgoing, ctx: &mut Context<Self>) {
        self.process.note_activity();
        let restartable = self.forks.is_main() && !self.turns.busy();
        if restartable && self.process.misses_a_secret(self.config.data_dir.root()) {
            // The secrets changed since the CLI started (a Google sign-in wrote the grant): its
            // sandbox was made without them. The next start covers them; the session resumes.
            // (An interactive fork would start over from its parent: it keeps its CLI.)
            tracing::info!(
                "the secret files changed since the claude cli started; starting it again"
            );
            self.process.live = None;
        }
        if !self.process.running() {
            self.turns.enqueue(out);
            self.ensure_launched(ctx);
            return;
        }
        if !self.turns.busy() {
            self.send(out, ctx);
            return;
        }
        if self.turns.holds_back(&out) {
            self.turns.enqueue(out);
            return;
        }
        if !self.turns.inflight.is_empty() {
            self.interrupt(ctx);
        }
        self.send(out, ctx);
    }

    pub(super) fn interrupt(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.process.driver() else {
            return;
        };
        for t in self.turns.inflight.iter_mut() {
            t.interrupted = true;
        }
        ctx.wait(
            async move { driver.interrupt().await }
                .into_actor(self)
                .map(|res, _act, _ctx| {
                    if let Err(e) = res {
                        tracing::warn!(cause = %e, "interrupt failed");
                    }
                }),
        );
    }

    pub(super) fn send(&mut self, out: Outgoing, ctx: &mut Context<Self>) {
        let Some(driver) = self.process.driver() else {
            self.turns.waiting.push_front(out);
            self.ensure_launched(ctx);
            return;
        };
        // A resumed or forked process reads the memory in its first message (the CLI may keep
        // the session's first system prompt); the turn keeps the line as the owner wrote it.
        let text = if std::mem::take(&mut self.process.memory_due) {
            crate::agent::memory::first_message(&self.config.data_dir, &out.text)
        } else {
            out.text.clone()
        };
        let message = UserMessage {
            text,
            images: out.images.clone(),
        };
        self.process.sign_of_life();
        ctx.wait(
            async move { driver.send_user(message).await }
                .into_actor(self)
                .map(move |res, act, ctx| match res {
                    Ok(uuid) => {
                        let mut turn = Turn::new(uuid, out.text, out.kind);
                        turn.resent = out.resent;
                        turn.job = out.job;
                        turn.snooze = out.snooze;
                        if out.kind == TurnKind::Message {
                            act.turns.since_compact += 1;
                            act.memory.note_message_sent(act.config.clock.now());
                        }
                        act.turns.inflight.push_back(turn);
                        act.forks.turns_sent += 1;
                        // Sent to a CLI that says it is idle: it should take it at once.
                        act.watch_for_lost_lines(ctx);
                    }
                    Err(e) => {
                        tracing::error!(cause = %e, "sending to the cli failed");
                        act.turns.jobs.answer(
                            out.job,
                            JobTurnEnd::bare(
                                JobTurnOutcome::Failed,
                                format!("sending to the cli failed: {e}"),
                            ),
                        );
                        act.show(SurfaceEvent::Error(
                            "-# couldn't reach the assistant — try again.".into(),
                        ));
                        if e.is_process_gone() {
                            act.process.live = None;
                        }
                        act.flush(ctx);
                    }
                }),
        );
    }

    /// Sends the next waiting line when nothing is in flight.
    pub(super) fn flush(&mut self, ctx: &mut Context<Self>) {
        if !self.turns.inflight.is_empty() {
            return;
        }
        if let Some(next) = self.turns.waiting.pop_front() {
            if self.process.running() {
                self.send(next, ctx);
            } else {
                self.turns.waiting.push_front(next);
                self.ensure_launched(ctx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_of(texts: &[(&str, &str)]) -> TurnLine {
        let mut line = TurnLine::default();
        for (uuid, text) in texts {
            line.inflight
                .push_back(Turn::new((*uuid).into(), (*text).into(), TurnKind::Message));
        }
        line
    }

    fn answered(line: &mut TurnLine, result: &TurnResult) -> Vec<String> {
        let (turn, merged) = line.take_answered(result).expect("a turn ends");
        std::iter::once(turn.uuid)
            .chain(merged.into_iter().map(|t| t.uuid))
            .collect()
    }

    #[test]
    fn a_result_naming_its_lines_ends_those_and_the_last_carries_the_answer() {
        let mut line = line_of(&[
            ("u1", "[t] alpha"),
            ("u2", "[t] bravo"),
            ("u3", "[t] charlie"),
        ]);
        let result = TurnResult {
            user_message_uuids: vec!["u1".into(), "u2".into()],
            ..TurnResult::default()
        };
        assert_eq!(answered(&mut line, &result), ["u2", "u1"]);
        assert_eq!(line.inflight.len(), 1, "charlie is still answered later");
    }

    #[test]
    fn a_result_naming_none_ends_the_lines_a_merged_replay_took_in() {
        // 2.1.197: the first line replayed alone, then both merged under a uuid of its own;
        // its result names no line.
        let mut line = line_of(&[("u1", "[t] alpha"), ("u2", "[t] bravo")]);
        line.note_taken(&["u1".into()], Some("[t] alpha"));
        line.note_taken(&["r9".into()], Some("[t] alpha\n[t] bravo"));
        assert_eq!(answered(&mut line, &TurnResult::default()), ["u2", "u1"]);
        assert!(line.inflight.is_empty(), "no line is left waiting for ever");
    }

    #[test]
    fn a_line_not_yet_taken_waits_for_its_own_result() {
        // An aborted turn took only the first line; the second is answered by the next turn.
        let mut line = line_of(&[("u1", "[t] alpha"), ("u2", "[t] bravo")]);
        line.note_taken(&["u1".into()], Some("[t] alpha"));
        assert_eq!(answered(&mut line, &TurnResult::default()), ["u1"]);
        line.note_taken(&["u2".into()], Some("[t] bravo"));
        assert_eq!(answered(&mut line, &TurnResult::default()), ["u2"]);
    }

    #[test]
    fn with_nothing_said_of_its_lines_a_result_ends_the_oldest() {
        let mut line = line_of(&[("u1", "[t] alpha"), ("u2", "[t] bravo")]);
        assert_eq!(answered(&mut line, &TurnResult::default()), ["u1"]);
    }
}
