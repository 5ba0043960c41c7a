//! Button clicks on the conversation (SPEC §10): a click (a Discord interaction, or `/button N`
//! on the console) comes to the main session as [`PressButton`]; its plan is read from the
//! custom id and, for `agent:` buttons, the stored prompt ([`crate::conversation::buttons::plan`]), then
//! carried out: a `[button]` turn, a background fork resumed as an interactive fork, one of the
//! fork buttons, the save confirmation's Confirm (`save_guard`), *(ours)* a snooze ([`crate::records::snooze::press`]), or a short reply.

use actix::prelude::*;

use super::fork_role::EnterFork;
use super::save_guard::{refused_save_line, ConfirmSave};
use super::{ForkButton, MainSession, Say};
use crate::agent::prompts::fork as fork_prompt;
use crate::agent::tools::ButtonClick;
use crate::conversation::buttons::{self, ClickPlan};
use crate::records::sessions::records::ReturnInquiry;

/// A button was pressed; answered with a line for the user (empty: nothing to say).
#[derive(Debug, Clone, Message)]
#[rtype(result = "String")]
pub struct PressButton {
    /// The button's custom id.
    pub custom_id: String,
}

/// Handles a button press on the main session: the click's plan is read (the inquiry through
/// the session records), then carried out.
impl Handler<PressButton> for MainSession {
    type Result = ResponseActFuture<Self, String>;
    fn handle(&mut self, msg: PressButton, _ctx: &mut Self::Context) -> Self::Result {
        let records = self.records.clone();
        Box::pin(
            async move { buttons::plan(&msg.custom_id, &records).await }
                .into_actor(self)
                .then(|plan, act, ctx| -> ResponseActFuture<Self, String> {
                    match plan {
                        ClickPlan::Snooze { choice, id } => {
                            let records = act.records.clone();
                            let data = act.config.data_dir.clone();
                            let (now, tz) = (act.config.clock.now(), act.config.tz);
                            Box::pin(
                                async move {
                                    crate::records::snooze::press(
                                        choice, id, &records, &data, now, tz,
                                    )
                                    .await
                                }
                                .into_actor(act),
                            )
                        }
                        ClickPlan::Fork(ButtonClick::ForkConfirmSave) => act.confirm_save(),
                        other => Box::pin(fut::ready(act.carry_out(other, ctx))),
                    }
                }),
        )
    }
}

impl MainSession {
    /// The save confirmation's Confirm: the fork checks again that saving loses nothing, then
    /// ends as saved; a refusal is the line the user reads.
    fn confirm_save(&mut self) -> ResponseActFuture<Self, String> {
        let Some(fork) = self.forks.open_fork() else {
            return Box::pin(fut::ready("not in a fork.".to_owned()));
        };
        Box::pin(
            async move {
                match fork.send(ConfirmSave).await {
                    Ok(Ok(())) => String::new(),
                    Ok(Err(refusal)) => refused_save_line(&refusal),
                    Err(_) => "not in a fork.".to_owned(),
                }
            }
            .into_actor(self),
        )
    }

    /// Carries out a button click's plan; the answer is the line to show the user, if any.
    fn carry_out(&mut self, plan: ClickPlan, ctx: &mut Context<Self>) -> String {
        match plan {
            ClickPlan::Reply(text) => text,
            ClickPlan::Prompt(prompt) => {
                let text = fork_prompt::button_prompt(&prompt);
                <Self as Handler<Say>>::handle(
                    self,
                    Say {
                        text,
                        images: Vec::new(),
                    },
                    ctx,
                );
                String::new()
            }
            ClickPlan::ResumeFork {
                session,
                prompt,
                taken: (id, inquiry),
            } => {
                let intro = fork_prompt::fork_resumed_by_button(&self.config.user_name, &prompt);
                let idle_minutes = self.idle_minutes();
                let started = self.start_fork(
                    EnterFork {
                        topic: None,
                        idle_minutes,
                        interrupt: false,
                        resume: Some((session, intro)),
                    },
                    ctx,
                );
                match started {
                    Ok(()) => String::new(),
                    Err(refusal) => {
                        // The click did nothing: the button keeps its prompt for later (the
                        // records' mailbox takes this before any later click's take).
                        self.records.do_send(ReturnInquiry { id, inquiry });
                        refusal.to_string()
                    }
                }
            }
            // Answered before this is reached (see the handler).
            ClickPlan::Snooze { .. } => String::new(),
            ClickPlan::Fork(click) => {
                let button = match click {
                    ButtonClick::ForkSave => ForkButton::Save,
                    ButtonClick::ForkExit => ForkButton::Exit,
                    _ => ForkButton::Report,
                };
                self.press_fork_button(button)
            }
        }
    }
}
