//! Reading `discord_embed`'s arguments (SPEC §10) into an [`Embed`]: colour and style names,
//! fields, at most five buttons with their actions, and Discord's length limits, each refused
//! with an [`ArgumentError`] naming the field. A colour or style that is not one of ours falls
//! back to the default rather than losing the whole embed (as the original does).

use serde_json::Value;

use super::arguments::{ArgumentError, Reader};
use super::button::{Button, ButtonAction, ButtonStyle, MAX_LABEL_CHARS};
use super::embed::{
    Embed, EmbedColor, EmbedField, MAX_BUTTONS, MAX_DESCRIPTION_CHARS, MAX_FIELDS,
    MAX_FIELD_NAME_CHARS, MAX_FIELD_VALUE_CHARS, MAX_TITLE_CHARS, MAX_TOTAL_CHARS,
};
use super::schema::ToolName;

/// `discord_embed`'s arguments: the embed (cleaned, no footer yet) and the critical flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedArgs {
    /// The embed to send.
    pub embed: Embed,
    /// Skip the budget and busy checks.
    pub critical: bool,
}

/// Reads `discord_embed`'s arguments into a cleaned embed without a footer.
pub fn read(arguments: &Value) -> Result<EmbedArgs, ArgumentError> {
    let reader = Reader::top(ToolName::DiscordEmbed, arguments)?;
    let title = reader.text("title", MAX_TITLE_CHARS)?.to_owned();
    let description = match reader.optional_string("description")? {
        Some(text) => Some(
            reader
                .within("description", text, MAX_DESCRIPTION_CHARS)?
                .to_owned(),
        ),
        None => None,
    };
    let color = or_default(reader.optional_string("color"), "color", |name| {
        EmbedColor::parse(name)
    });
    let field_items = reader.items("fields")?;
    if field_items.len() > MAX_FIELDS {
        return Err(reader.invalid("fields", format!("has more than {MAX_FIELDS} entries")));
    }
    let mut fields = Vec::with_capacity(field_items.len());
    for (index, value) in field_items.iter().enumerate() {
        let item = reader.item("fields", index, value)?;
        fields.push(EmbedField {
            name: item.text("name", MAX_FIELD_NAME_CHARS)?.to_owned(),
            value: item.text("value", MAX_FIELD_VALUE_CHARS)?.to_owned(),
            inline: item.flag("inline", true)?,
        });
    }
    let button_items = reader.items("buttons")?;
    if button_items.len() > MAX_BUTTONS {
        return Err(reader.invalid("buttons", format!("has more than {MAX_BUTTONS} entries")));
    }
    let mut buttons = Vec::with_capacity(button_items.len());
    for (index, value) in button_items.iter().enumerate() {
        buttons.push(button(&reader.item("buttons", index, value)?)?);
    }
    let embed = Embed {
        title,
        description,
        color,
        fields,
        buttons,
        footer: None,
    }
    .cleaned();
    if embed.title.is_empty() && embed.description.is_none() && embed.fields.is_empty() {
        return Err(reader.invalid("title", "has nothing left once emoji are removed"));
    }
    if embed.fields.iter().any(|f| f.name.is_empty()) {
        return Err(reader.invalid(
            "fields",
            "has a name with nothing left once emoji are removed (headings carry no emoji)",
        ));
    }
    if embed.text_chars() > MAX_TOTAL_CHARS {
        return Err(reader.invalid(
            "description",
            format!("and the other texts add up to more than {MAX_TOTAL_CHARS} characters"),
        ));
    }
    Ok(EmbedArgs {
        embed,
        critical: reader.flag("critical", false)?,
    })
}

/// The value a name argument picks (any case); the default when it is absent, not a string or
/// not a name `parse` knows (logged: the model chose something we do not have).
fn or_default<T: Default>(
    given: Result<Option<&str>, ArgumentError>,
    field: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> T {
    match given {
        Ok(None) => T::default(),
        Ok(Some(name)) => parse(&name.trim().to_ascii_lowercase()).unwrap_or_else(|| {
            tracing::info!(field, value = name, "unknown embed name; using the default");
            T::default()
        }),
        Err(e) => {
            tracing::info!(field, cause = %e, "embed name is not a string; using the default");
            T::default()
        }
    }
}

fn button(item: &Reader<'_>) -> Result<Button, ArgumentError> {
    let label = item.text("label", MAX_LABEL_CHARS)?.to_owned();
    let style = or_default(item.optional_string("style"), "style", ButtonStyle::parse);
    let action_text = item.text("action", usize::MAX)?;
    let action = ButtonAction::parse(action_text).map_err(|source| ArgumentError::Action {
        tool: item.tool,
        field: item.path("action"),
        source,
    })?;
    Ok(Button {
        label,
        style,
        action,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn error(arguments: Value) -> String {
        read(&arguments).unwrap_err().to_string()
    }

    #[test]
    fn defaults_are_blue_secondary_and_inline() {
        let args = read(&json!({
            "title": "t",
            "fields": [{"name": "n", "value": "v"}],
            "buttons": [{"label": "Close", "action": "dismiss"}],
        }))
        .unwrap();
        assert_eq!(args.embed.color, EmbedColor::Blue);
        assert!(args.embed.fields[0].inline);
        assert_eq!(args.embed.buttons[0].style, ButtonStyle::Secondary);
        assert_eq!(args.embed.buttons[0].action, ButtonAction::Dismiss);
        assert_eq!(args.embed.footer, None);
        assert!(!args.critical);
    }

    #[test]
    fn title_is_required_and_not_blank() {
        assert_eq!(
            error(json!({"description": "x"})),
            "invalid arguments for discord_embed: `title` is required"
        );
        assert!(error(json!({"title": " "})).contains("must not be empty"));
    }

    #[test]
    fn an_emoji_only_title_needs_some_other_text() {
        assert!(error(json!({"title": "🎉"})).contains("nothing left once emoji are removed"));
        let fields = json!({"title": "Day", "fields": [{"name": "✅", "value": "done"}]});
        assert!(error(fields).contains("nothing left once emoji are removed"));
        let with_body = read(&json!({"title": "🎉", "description": "party at 8"})).unwrap();
        assert_eq!(with_body.embed.title, "");
    }

    #[test]
    fn unknown_colour_and_style_fall_back_to_the_defaults() {
        let args = read(&json!({"title": "t", "color": "orange", "buttons": [
            {"label": "a", "style": "blurple", "action": "dismiss"},
            {"label": "b", "style": 3, "action": "dismiss"},
            {"label": "c", "style": "danger", "action": "dismiss"},
        ]}))
        .unwrap();
        assert_eq!(args.embed.color, EmbedColor::Blue);
        let styles: Vec<ButtonStyle> = args.embed.buttons.iter().map(|b| b.style).collect();
        assert_eq!(
            styles,
            [
                ButtonStyle::Secondary,
                ButtonStyle::Secondary,
                ButtonStyle::Danger
            ]
        );
        let green = read(&json!({"title": "t", "color": " Green "})).unwrap();
        assert_eq!(green.embed.color, EmbedColor::Green);
    }

    #[test]
    fn bad_button_action_names_the_button() {
        let message = error(json!({"title": "t", "buttons": [
            {"label": "a", "action": "dismiss"},
            {"label": "b", "action": "launch:now"},
        ]}));
        assert!(message.contains("`buttons[1].action`"), "{message}");
        assert!(message.contains("unknown button action"), "{message}");
    }

    #[test]
    fn fields_need_name_and_value_and_must_be_objects() {
        assert!(error(json!({"title": "t", "fields": [{"name": "n"}]}))
            .contains("`fields[0].value` is required"));
        assert!(error(json!({"title": "t", "fields": ["n: v"]}))
            .contains("`fields[0]` must be an object"));
        assert!(error(json!({"title": "t", "fields": {"n": "v"}}))
            .contains("`fields` must be an array"));
    }

    #[test]
    fn discord_length_limits_are_enforced() {
        assert!(error(json!({"title": "x".repeat(257)})).contains("the limit is 256"));
        assert!(
            error(json!({"title": "t", "description": "d".repeat(4097)}))
                .contains("the limit is 4096")
        );
        let label = "l".repeat(81);
        assert!(
            error(json!({"title": "t", "buttons": [{"label": label, "action": "dismiss"}]}))
                .contains("the limit is 80")
        );
        let many: Vec<Value> = (0..26)
            .map(|i| json!({"name": i.to_string(), "value": "v"}))
            .collect();
        assert!(error(json!({"title": "t", "fields": many})).contains("more than 25"));
        let long: Vec<Value> = (0..7)
            .map(|i| json!({"name": i.to_string(), "value": "v".repeat(1000)}))
            .collect();
        assert!(error(json!({"title": "t", "fields": long})).contains("more than 6000"));
    }

    #[test]
    fn five_buttons_are_fine_and_six_are_not() {
        let button = json!({"label": "x", "action": "agent:check again"});
        assert_eq!(
            read(&json!({"title": "t", "buttons": vec![button.clone(); 5]}))
                .unwrap()
                .embed
                .buttons
                .len(),
            5
        );
        assert!(error(json!({"title": "t", "buttons": vec![button; 6]})).contains("more than 5"));
    }
}
