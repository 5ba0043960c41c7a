//! Lines for the conversation: the user's ([`Say`]) and foreground jobs' ([`FireJob`], answered
//! when the turn ends, see `job_turns`), each with the timestamp header and the pending updates
//! popped (a fork only peeks at them), and — for a foreground reminder — the snooze its answer's
//! buttons press, stored before the turn.

use actix::prelude::*;

use super::conversation::Outgoing;
use super::fork_role::Role;
use super::job_turns::{JobTurnEnd, JobTurnOutcome};
use super::turn::TurnKind;
use super::{header, FireJob, MainSession, Say, CATCHING_UP};
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::Job;
use crate::records::pending_updates::{Peek, Pop, Reader};
use crate::records::sessions::records::RegisterSnooze;

impl Handler<Say> for MainSession {
    type Result = ();
    fn handle(&mut self, msg: Say, ctx: &mut Self::Context) {
        self.say(msg, None, None, ctx);
    }
}

impl MainSession {
    /// A line for the conversation (the user's, a button's, a foreground job's with its
    /// ticket); `snooze` is the snooze its answer's buttons press.
    fn say(&mut self, msg: Say, job: Option<u64>, snooze: Option<String>, ctx: &mut Context<Self>) {
        if self.forks.in_fork() {
            if let Some(fork) = &self.forks.open {
                fork.do_send(msg);
            }
            return;
        }
        let pending = self.pending.clone();
        let now = self.config.clock.now();
        let tz = self.config.tz;
        // The main session consumes the updates; a fork only reads them.
        let reader = match &mut self.forks.role {
            Role::Main => Reader::MainSession,
            Role::Fork(state) => {
                state.last_activity = std::time::Instant::now();
                state.nudges = 0;
                if job.is_none() {
                    state.user_turns += 1;
                }
                Reader::Fork
            }
        };
        ctx.wait(
            async move {
                let updates = match reader {
                    Reader::MainSession => pending.send(Pop).await,
                    Reader::Fork => pending.send(Peek).await,
                };
                updates.unwrap_or_else(|e| {
                    tracing::error!(cause = %e, "the pending-updates queue has stopped; the message goes without them");
                    Vec::new()
                })
            }
            .into_actor(self)
            .map(move |updates, act, ctx| {
                // A fork shows each update once, in the first exchange that finds it queued.
                let updates = match &mut act.forks.role {
                    Role::Fork(state) => state.unseen_updates(updates),
                    Role::Main => updates,
                };
                if !updates.is_empty() && reader == Reader::MainSession {
                    act.show(SurfaceEvent::Notice(CATCHING_UP.into()));
                }
                let text = match job {
                    Some(_) => header::compose_job(now, tz, reader, &updates, &msg.text),
                    None => header::compose(now, tz, reader, &updates, &msg.text),
                };
                act.submit(
                    Outgoing {
                        text,
                        images: msg.images,
                        kind: TurnKind::Message,
                        resent: false,
                        job,
                        snooze,
                    },
                    ctx,
                );
            }),
        );
    }
}

impl Handler<FireJob> for MainSession {
    type Result = ResponseFuture<JobTurnEnd>;
    fn handle(&mut self, msg: FireJob, ctx: &mut Self::Context) -> Self::Result {
        if msg.job.settings().background {
            // Background jobs get a fork from the job runner; they never take the conversation.
            tracing::error!(job = %msg.job.id(), "a background job reached the main session; not run");
            return Box::pin(async {
                JobTurnEnd::bare(
                    JobTurnOutcome::Failed,
                    "a background job reached the conversation".to_owned(),
                )
            });
        }
        if self.forks.in_fork() {
            // The user is talking to an interactive fork: the job's turn runs there.
            if let Some(fork) = self.forks.open.clone() {
                return Box::pin(async move {
                    fork.send(msg).await.unwrap_or_else(|_| {
                        JobTurnEnd::bare(JobTurnOutcome::Dropped, "the fork ended".to_owned())
                    })
                });
            }
        }
        let (ticket, rx) = self.turns.jobs.issue();
        self.say_job(msg, ticket, ctx);
        Box::pin(async move {
            rx.await.unwrap_or_else(|_| {
                JobTurnEnd::bare(
                    JobTurnOutcome::Dropped,
                    "the conversation stopped before the turn ended".to_owned(),
                )
            })
        })
    }
}

impl MainSession {
    /// A foreground job's prompt as a line carrying its ticket. A reminder's answer gets snooze
    /// buttons (stored first, so they work after a restart); waited for, so lines that come
    /// after it stay after it.
    fn say_job(&mut self, msg: FireJob, ticket: u64, ctx: &mut Context<Self>) {
        let say = Say {
            text: msg.prompt,
            images: Vec::new(),
        };
        let template = match &msg.job {
            Job::Reminder(_) => crate::records::snooze::template_for(
                &msg.job,
                self.config.clock.now(),
                self.config.tz,
            ),
            _ => None,
        };
        let Some(template) = template else {
            self.say(say, Some(ticket), None, ctx);
            return;
        };
        let records = self.records.clone();
        let reminder = crate::records::snooze::stored_form(&template);
        ctx.wait(
            async move { records.send(RegisterSnooze { reminder }).await }
                .into_actor(self)
                .map(move |stored, act, ctx| {
                    let snooze = match stored {
                        Ok(Ok(id)) => Some(id),
                        Ok(Err(e)) => {
                            tracing::error!(cause = %e, "could not store the reminder's snooze; no buttons");
                            None
                        }
                        Err(_) => {
                            tracing::error!("the session records have stopped; no snooze buttons");
                            None
                        }
                    };
                    act.say(say, Some(ticket), snooze, ctx);
                }),
        );
    }
}
