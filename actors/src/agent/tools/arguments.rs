//! Reading the model's tool arguments (SPEC §10) into typed values, once, at the edge. A bad
//! argument is an [`ArgumentError`] naming the tool and the field; the model reads it as an
//! error result and can retry.

use serde_json::{Map, Value};

use super::button::ActionError;
use super::schema::ToolName;

/// Why a tool's arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    /// The arguments were not a JSON object.
    #[error("invalid arguments for {}: expected an object", tool.as_str())]
    NotAnObject {
        /// The tool called.
        tool: ToolName,
    },
    /// A required field is absent (or null).
    #[error("invalid arguments for {}: `{field}` is required", tool.as_str())]
    Missing {
        /// The tool called.
        tool: ToolName,
        /// The field, as a path (`buttons[0].label`).
        field: String,
    },
    /// A field has the wrong JSON type.
    #[error("invalid arguments for {}: `{field}` must be {expected}", tool.as_str())]
    WrongType {
        /// The tool called.
        tool: ToolName,
        /// The field, as a path.
        field: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A field has the right type but a value the tool cannot use.
    #[error("invalid arguments for {}: `{field}` {reason}", tool.as_str())]
    Invalid {
        /// The tool called.
        tool: ToolName,
        /// The field, as a path.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A button's action is not one of the known forms.
    #[error("invalid arguments for {}: `{field}`: {source}", tool.as_str())]
    Action {
        /// The tool called.
        tool: ToolName,
        /// The field, as a path.
        field: String,
        /// What is wrong with the action.
        source: ActionError,
    },
}

/// `ping_user`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PingArgs {
    /// What to tell the user.
    pub message: String,
    /// Skip the budget and busy checks.
    pub critical: bool,
}

/// `enter_fork`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnterForkArgs {
    /// What the fork is about.
    pub topic: Option<String>,
    /// Minutes of silence before the idle nudge, when the model chose.
    pub idle_timeout: Option<u32>,
}

/// Reads one tool's argument object (shared with [`super::embed_arguments`]).
pub(super) struct Reader<'a> {
    /// The tool whose arguments these are, for error messages.
    pub(super) tool: ToolName,
    map: &'a Map<String, Value>,
    /// Path prefix for nested objects (`buttons[1].`).
    prefix: String,
}

impl<'a> Reader<'a> {
    pub(super) fn top(tool: ToolName, arguments: &'a Value) -> Result<Self, ArgumentError> {
        match arguments {
            Value::Object(map) => Ok(Self {
                tool,
                map,
                prefix: String::new(),
            }),
            _ => Err(ArgumentError::NotAnObject { tool }),
        }
    }

    pub(super) fn path(&self, field: &str) -> String {
        format!("{}{field}", self.prefix)
    }

    fn present(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|value| !value.is_null())
    }

    /// The name an argument goes by in this call: `current`, or `older` (a name the original
    /// used to take) when only that one is given.
    pub(super) fn renamed(&self, current: &'static str, older: &'static str) -> &'static str {
        if self.present(current).is_none() && self.present(older).is_some() {
            older
        } else {
            current
        }
    }

    fn wrong(&self, field: &str, expected: &'static str) -> ArgumentError {
        ArgumentError::WrongType {
            tool: self.tool,
            field: self.path(field),
            expected,
        }
    }

    pub(super) fn invalid(&self, field: &str, reason: impl Into<String>) -> ArgumentError {
        ArgumentError::Invalid {
            tool: self.tool,
            field: self.path(field),
            reason: reason.into(),
        }
    }

    pub(super) fn optional_string(&self, field: &str) -> Result<Option<&'a str>, ArgumentError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(self.wrong(field, "a string")),
        }
    }

    /// A string that must be there and hold more than whitespace.
    pub(super) fn text(&self, field: &str, max_chars: usize) -> Result<&'a str, ArgumentError> {
        let text = self
            .optional_string(field)?
            .ok_or_else(|| ArgumentError::Missing {
                tool: self.tool,
                field: self.path(field),
            })?;
        if text.trim().is_empty() {
            return Err(self.invalid(field, "must not be empty"));
        }
        self.within(field, text, max_chars)
    }

    pub(super) fn within(
        &self,
        field: &str,
        text: &'a str,
        max: usize,
    ) -> Result<&'a str, ArgumentError> {
        let chars = text.chars().count();
        if chars > max {
            return Err(self.invalid(field, format!("is {chars} characters; the limit is {max}")));
        }
        Ok(text)
    }

    pub(super) fn flag(&self, field: &str, default: bool) -> Result<bool, ArgumentError> {
        match self.present(field) {
            None => Ok(default),
            Some(Value::Bool(value)) => Ok(*value),
            Some(_) => Err(self.wrong(field, "true or false")),
        }
    }

    /// A whole number of at least 1 (a float without a fraction is accepted).
    fn positive(&self, field: &str) -> Result<Option<u32>, ArgumentError> {
        let Some(value) = self.present(field) else {
            return Ok(None);
        };
        let number = value
            .as_i64()
            .or_else(|| {
                value
                    .as_f64()
                    .filter(|f| f.fract() == 0.0)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| self.wrong(field, "a whole number"))?;
        if number < 1 {
            return Err(self.invalid(field, "must be at least 1"));
        }
        u32::try_from(number)
            .map(Some)
            .map_err(|_| self.invalid(field, "is too large"))
    }

    /// A whole number of at least `min`, when given (a float without a fraction is accepted).
    pub(super) fn whole(&self, field: &str, min: i64) -> Result<Option<i64>, ArgumentError> {
        let Some(value) = self.present(field) else {
            return Ok(None);
        };
        let number = value
            .as_i64()
            .or_else(|| {
                value
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| self.wrong(field, "a whole number"))?;
        if number < min {
            return Err(self.invalid(field, format!("must be at least {min}")));
        }
        Ok(Some(number))
    }

    pub(super) fn items(&self, field: &str) -> Result<&'a [Value], ArgumentError> {
        match self.present(field) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(_) => Err(self.wrong(field, "an array")),
        }
    }

    pub(super) fn item(
        &self,
        field: &str,
        index: usize,
        value: &'a Value,
    ) -> Result<Self, ArgumentError> {
        let path = format!("{}[{index}]", self.path(field));
        match value {
            Value::Object(map) => Ok(Self {
                tool: self.tool,
                map,
                prefix: format!("{path}."),
            }),
            _ => Err(ArgumentError::WrongType {
                tool: self.tool,
                field: path,
                expected: "an object",
            }),
        }
    }
}

/// Reads `ping_user`'s arguments.
pub fn ping(arguments: &Value) -> Result<PingArgs, ArgumentError> {
    let reader = Reader::top(ToolName::PingUser, arguments)?;
    Ok(PingArgs {
        message: reader.text("message", usize::MAX)?.to_owned(),
        critical: reader.flag("critical", false)?,
    })
}

/// Reads `report_updates`' message.
pub fn report(arguments: &Value) -> Result<String, ArgumentError> {
    let reader = Reader::top(ToolName::ReportUpdates, arguments)?;
    Ok(reader.text("message", usize::MAX)?.to_owned())
}

/// Reads `follow_up_chain`'s minutes.
pub fn follow_up(arguments: &Value) -> Result<u32, ArgumentError> {
    let reader = Reader::top(ToolName::FollowUpChain, arguments)?;
    reader
        .positive("minutes_from_now")?
        .ok_or_else(|| ArgumentError::Missing {
            tool: ToolName::FollowUpChain,
            field: "minutes_from_now".into(),
        })
}

/// Reads `enter_fork`'s arguments.
pub fn enter_fork(arguments: &Value) -> Result<EnterForkArgs, ArgumentError> {
    let reader = Reader::top(ToolName::EnterFork, arguments)?;
    let topic = reader
        .optional_string("topic")?
        .map(str::trim)
        .filter(|topic| !topic.is_empty())
        .map(str::to_owned);
    Ok(EnterForkArgs {
        topic,
        idle_timeout: reader.positive("idle_timeout")?,
    })
}

/// Checks that a tool without parameters got an object (anything in it is ignored).
pub fn none(tool: ToolName, arguments: &Value) -> Result<(), ArgumentError> {
    match arguments {
        Value::Null => Ok(()),
        _ => Reader::top(tool, arguments).map(|_| ()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ping_reads_message_and_critical() {
        assert_eq!(
            ping(&json!({"message": "hi", "critical": true})),
            Ok(PingArgs {
                message: "hi".into(),
                critical: true
            })
        );
        assert_eq!(
            ping(&json!({"message": "hi"})).map(|a| a.critical),
            Ok(false)
        );
    }

    #[test]
    fn wrong_types_name_the_field_and_the_expected_type() {
        assert_eq!(
            ping(&json!({"message": 5})).unwrap_err().to_string(),
            "invalid arguments for ping_user: `message` must be a string"
        );
        assert_eq!(
            ping(&json!({"message": "x", "critical": "yes"}))
                .unwrap_err()
                .to_string(),
            "invalid arguments for ping_user: `critical` must be true or false"
        );
        assert_eq!(
            report(&json!(["a"])),
            Err(ArgumentError::NotAnObject {
                tool: ToolName::ReportUpdates
            })
        );
    }

    #[test]
    fn null_counts_as_absent() {
        assert_eq!(
            ping(&json!({"message": null})),
            Err(ArgumentError::Missing {
                tool: ToolName::PingUser,
                field: "message".into()
            })
        );
        assert_eq!(
            ping(&json!({"message": "x", "critical": null})).map(|a| a.critical),
            Ok(false)
        );
    }

    #[test]
    fn minutes_must_be_a_whole_number_of_at_least_one() {
        assert_eq!(follow_up(&json!({"minutes_from_now": 45})), Ok(45));
        assert_eq!(follow_up(&json!({"minutes_from_now": 30.0})), Ok(30));
        for bad in [
            json!(0),
            json!(-5),
            json!(2.5),
            json!("30"),
            json!(5_000_000_000_i64),
        ] {
            assert!(
                follow_up(&json!({"minutes_from_now": bad})).is_err(),
                "{bad} accepted"
            );
        }
        assert_eq!(
            follow_up(&json!({})),
            Err(ArgumentError::Missing {
                tool: ToolName::FollowUpChain,
                field: "minutes_from_now".into()
            })
        );
    }

    #[test]
    fn enter_fork_trims_the_topic_and_checks_the_timeout() {
        assert_eq!(
            enter_fork(&json!({"topic": "  taxes "})),
            Ok(EnterForkArgs {
                topic: Some("taxes".into()),
                idle_timeout: None
            })
        );
        assert_eq!(
            enter_fork(&json!({"topic": "   "})).map(|a| a.topic),
            Ok(None)
        );
        assert!(enter_fork(&json!({"idle_timeout": 0})).is_err());
        assert!(enter_fork(&json!({"topic": 3})).is_err());
    }

    #[test]
    fn tools_without_parameters_take_an_object_or_nothing() {
        assert_eq!(none(ToolName::ExitFork, &json!({"stray": 1})), Ok(()));
        assert_eq!(none(ToolName::ExitFork, &Value::Null), Ok(()));
        assert!(none(ToolName::SaveContext, &json!("now")).is_err());
    }
}
