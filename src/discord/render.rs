//! What embeds look like on Discord (SPEC §6, §10): the agent's `discord_embed` with its persistent
//! `act:<action>:<data>` buttons, the fork embeds — purple "Forked Session" with Save Context /
//! Report / Exit Fork, and the three "Fork Ended" ones — and *(ours)* the row of snooze buttons
//! under a `[bg]` ping or a reminder's answer.

use ollim_actors::agent::tools::{ButtonClick, ButtonStyle, Embed};
use ollim_actors::conversation::main_session::ExitAction;
use ollim_actors::records::snooze::SnoozeChoice;
use serenity::all::{
    ActionRow, ActionRowComponent, ButtonKind, ButtonStyle as DiscordStyle, CreateActionRow,
    CreateButton, CreateEmbed, CreateEmbedFooter, CreateMessage, MessageFlags,
};

/// Discord's "greyple", the colour of a discarded fork.
const GREYPLE: u32 = 0x99AAB5;
const GREEN: u32 = 0x2ECC71;
const BLUE: u32 = 0x3498DB;
const PURPLE: u32 = 0x9B59B6;

fn style(s: ButtonStyle) -> DiscordStyle {
    match s {
        ButtonStyle::Primary => DiscordStyle::Primary,
        ButtonStyle::Secondary => DiscordStyle::Secondary,
        ButtonStyle::Success => DiscordStyle::Success,
        ButtonStyle::Danger => DiscordStyle::Danger,
    }
}

/// A message's button rows again, with the button `custom_id` greyed out (a used or expired
/// `agent:` button); `None` when the message has no such enabled button. Rows of other
/// components are left out (our messages carry only buttons).
pub fn with_button_disabled(rows: &[ActionRow], custom_id: &str) -> Option<Vec<CreateActionRow>> {
    disabling(rows, |id| id == custom_id)
}

/// A message's button rows again with every `agent:` button greyed out (past their 7 days);
/// `None` when it has no enabled one.
pub fn with_agent_buttons_disabled(rows: &[ActionRow]) -> Option<Vec<CreateActionRow>> {
    disabling(rows, |id| {
        matches!(ButtonClick::parse(id), Some(ButtonClick::Agent { .. }))
    })
}

/// The rows with the enabled buttons whose custom id `hits` greyed out; `None` when none is.
fn disabling(rows: &[ActionRow], hits: impl Fn(&str) -> bool) -> Option<Vec<CreateActionRow>> {
    let mut found = false;
    let rows = rows
        .iter()
        .map(|row| {
            let buttons = row
                .components
                .iter()
                .filter_map(|c| match c {
                    ActionRowComponent::Button(b) => Some(b.clone()),
                    _ => None,
                })
                .map(|b| {
                    let hit = !b.disabled
                        && matches!(&b.data, ButtonKind::NonLink { custom_id: id, .. } if hits(id));
                    found |= hit;
                    CreateButton::from(b.clone()).disabled(b.disabled || hit)
                })
                .collect();
            CreateActionRow::Buttons(buttons)
        })
        .collect();
    found.then_some(rows)
}

/// The agent's embed as Discord's builder.
pub fn embed(e: &Embed) -> CreateEmbed {
    let mut out = CreateEmbed::new().title(&e.title).colour(e.color.rgb());
    if let Some(d) = &e.description {
        out = out.description(d);
    }
    for f in &e.fields {
        out = out.field(&f.name, &f.value, f.inline);
    }
    if let Some(footer) = &e.footer {
        out = out.footer(CreateEmbedFooter::new(footer));
    }
    out
}

/// The embed message with one row of buttons, `button_ids[i]` on `e.buttons[i]`.
pub fn embed_message(e: &Embed, button_ids: &[String]) -> CreateMessage {
    let buttons: Vec<CreateButton> = e
        .buttons
        .iter()
        .zip(button_ids)
        .map(|(b, id)| CreateButton::new(id).label(&b.label).style(style(b.style)))
        .collect();
    let mut msg = CreateMessage::new().embed(embed(e));
    if !buttons.is_empty() {
        msg = msg.components(vec![CreateActionRow::Buttons(buttons)]);
    }
    msg
}

/// The three snooze buttons ("15 min", "1 hour", "tomorrow 9:00") for the snooze stored as `id`.
pub fn snooze_row(id: &str) -> CreateActionRow {
    let buttons = SnoozeChoice::ALL
        .into_iter()
        .map(|choice| {
            let click = ButtonClick::Snooze {
                choice,
                id: id.to_owned(),
            };
            CreateButton::new(click.custom_id())
                .label(choice.label())
                .style(DiscordStyle::Secondary)
        })
        .collect();
    CreateActionRow::Buttons(buttons)
}

/// A line from the bot; the first greeting carries the "Get started — 3 questions" button
/// (SPEC §17) that starts setup.
pub fn notice(text: &str) -> CreateMessage {
    let msg = CreateMessage::new().content(text);
    if text != ollim_actors::conversation::main_session::FIRST_GREETING {
        return msg;
    }
    let button = CreateButton::new(ollim_actors::bot::onboarding::SETUP_BUTTON_ID)
        .label(ollim_actors::bot::onboarding::SETUP_BUTTON_LABEL)
        .style(DiscordStyle::Primary);
    msg.components(vec![CreateActionRow::Buttons(vec![button])])
}

/// *(ours)* The line saying a background update waits for the conversation: posted silent
/// (Discord's `@silent`), so an `always` job does not buzz the phone on every run — the ping
/// budget is for that.
pub fn update_queued(job: &str, waiting: usize) -> CreateMessage {
    CreateMessage::new()
        .content(ollim_actors::conversation::surface::update_queued_line(
            job, waiting,
        ))
        .flags(MessageFlags::SUPPRESS_NOTIFICATIONS)
}

/// A `[bg]` ping, with the snooze buttons when it has a snooze.
pub fn ping(text: &str, snooze: Option<&str>) -> CreateMessage {
    let msg = CreateMessage::new().content(text);
    match snooze {
        Some(id) => msg.components(vec![snooze_row(id)]),
        None => msg,
    }
}

/// The purple embed that opens an interactive fork, with its three buttons.
pub fn fork_started(topic: Option<&str>) -> CreateMessage {
    let description = match topic {
        Some(t) => format!("Topic: {t}"),
        None => "branched conversation — changes stay separate from main.".to_owned(),
    };
    let buttons = [
        ("Save Context", DiscordStyle::Success, ButtonClick::ForkSave),
        ("Report", DiscordStyle::Primary, ButtonClick::ForkReport),
        ("Exit Fork", DiscordStyle::Danger, ButtonClick::ForkExit),
    ]
    .into_iter()
    .map(|(label, s, click)| CreateButton::new(click.custom_id()).label(label).style(s))
    .collect();
    CreateMessage::new()
        .embed(
            CreateEmbed::new()
                .title("Forked Session")
                .description(description)
                .colour(PURPLE),
        )
        .components(vec![CreateActionRow::Buttons(buttons)])
}

/// Why a saved fork was discarded instead.
pub const NOTHING_TO_SAVE: &str = "fork discarded (no session to save)";

/// The embed that closes an interactive fork.
pub fn fork_ended(action: &ExitAction) -> CreateEmbed {
    let not_saved_text;
    let (title, colour, summary) = match action {
        ExitAction::Save => ("Fork Ended — saved to main", GREEN, None),
        ExitAction::Report(s) => ("Fork Ended — summary queued", BLUE, Some(s.as_str())),
        ExitAction::Discard => ("Fork Ended — discarded", GREYPLE, None),
        ExitAction::NothingToSave => ("Fork Ended — discarded", GREYPLE, Some(NOTHING_TO_SAVE)),
        ExitAction::NotSaved(not_saved) => {
            not_saved_text = format!("fork discarded: {not_saved}");
            (
                "Fork Ended — not saved",
                GREYPLE,
                Some(not_saved_text.as_str()),
            )
        }
    };
    let out = CreateEmbed::new().title(title).colour(colour);
    match summary {
        Some(s) if !s.is_empty() => out.description(s),
        _ => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ollim_actors::agent::tools::{Button, ButtonAction, EmbedColor};

    fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
        serde_json::to_value(v).unwrap_or_default()
    }

    #[test]
    fn embed_buttons_carry_their_persistent_custom_ids_in_order() {
        let e = Embed {
            title: "Plan".into(),
            description: Some("today".into()),
            color: EmbedColor::Red,
            fields: vec![],
            buttons: vec![
                Button {
                    label: "Go".into(),
                    style: ButtonStyle::Primary,
                    action: ButtonAction::Dismiss,
                },
                Button {
                    label: "Later".into(),
                    style: ButtonStyle::Danger,
                    action: ButtonAction::Dismiss,
                },
            ],
            footer: Some("bg".into()),
        };
        let v = json(&embed_message(
            &e,
            &["act:dismiss:_".into(), "act:agent:x".into()],
        ));
        let row = &v["components"][0]["components"];
        assert_eq!(row[0]["custom_id"], "act:dismiss:_");
        assert_eq!(row[1]["custom_id"], "act:agent:x");
        assert_eq!(row[1]["style"], 4);
        assert_eq!(v["embeds"][0]["footer"]["text"], "bg");
        assert_eq!(v["embeds"][0]["color"], 0xE74C3C);
    }

    #[test]
    fn a_ping_with_a_snooze_carries_the_three_snooze_buttons() {
        let v = json(&ping("[bg] stretch", Some("a1b2c3d4")));
        assert_eq!(v["content"], "[bg] stretch");
        let row = v["components"][0]["components"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let buttons: Vec<_> = row
            .iter()
            .map(|b| (b["label"].clone(), b["custom_id"].clone()))
            .collect();
        assert_eq!(
            buttons,
            [
                ("15 min".into(), "act:snooze_15m:a1b2c3d4".into()),
                ("1 hour".into(), "act:snooze_1h:a1b2c3d4".into()),
                (
                    "tomorrow 9:00".into(),
                    "act:snooze_tomorrow:a1b2c3d4".into()
                ),
            ]
        );
        assert!(json(&ping("[bg] x", None)).get("components").is_none());
    }

    #[test]
    fn fork_embed_has_save_report_exit_buttons() {
        let v = json(&fork_started(Some("taxes")));
        assert_eq!(v["embeds"][0]["title"], "Forked Session");
        assert_eq!(v["embeds"][0]["description"], "Topic: taxes");
        let ids: Vec<_> = v["components"][0]["components"]
            .as_array()
            .map(|a| a.iter().map(|b| b["custom_id"].clone()).collect())
            .unwrap_or_default();
        assert_eq!(
            ids,
            ["act:fork_save:_", "act:fork_report:_", "act:fork_exit:_"]
        );
        let ended = json(&fork_ended(&ExitAction::Report("did x".into())));
        assert_eq!(ended["title"], "Fork Ended — summary queued");
        assert_eq!(ended["description"], "did x");
        let nothing = json(&fork_ended(&ExitAction::NothingToSave));
        assert_eq!(nothing["title"], "Fork Ended — discarded");
        assert_eq!(
            nothing["description"],
            "fork discarded (no session to save)"
        );
        let not_saved = json(&fork_ended(&ExitAction::NotSaved(Box::new(
            ollim_actors::base::state_file::NotSaved {
                file: "/d/state/sessions.json".into(),
                cause: "No space left on device (os error 28)".into(),
            },
        ))));
        assert_eq!(not_saved["title"], "Fork Ended — not saved");
        assert_eq!(
            not_saved["description"],
            "fork discarded: couldn't save /d/state/sessions.json: No space left on device (os \
             error 28) — nothing changed"
        );
    }
}
