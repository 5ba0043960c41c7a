//! *(ours, SPEC §21)* The webhook server's recent answers, for the dashboard's Webhooks page:
//! each request to `POST /hook/<id>` and how it was answered (202 accepted, 200 duplicate,
//! 401, 429, a payload refused and why). The [`Admission`] actor keeps them beside the rate
//! windows and delivery ids it already owns, in memory and bounded ([`KEPT`], the oldest go),
//! so a flood of refused requests costs a fixed amount of memory and never a disk write. They
//! start empty with each start of the bot; what an accepted hook then did (screened, ran,
//! skipped) is its line in the run history.
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | [`RecordVerdict`] | the `/hook/<id>` handler, once it has answered | — |
//! | [`RecentVerdicts`] | the dashboard | the kept verdicts, newest first |

use actix::{Handler, Message, MessageResult};
use chrono::{DateTime, Utc};

use super::admission::Admission;

/// Most verdicts kept.
pub const KEPT: usize = 100;
/// Longest hook id kept, in characters (the id comes from the URL; anything may be sent).
pub const MAX_HOOK_CHARS: usize = 64;
/// Longest note kept, in characters.
pub const MAX_NOTE_CHARS: usize = 300;

/// One answered request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// When it was answered.
    pub at: DateTime<Utc>,
    /// The hook id in the URL, as sent (cut to [`MAX_HOOK_CHARS`]).
    pub hook: String,
    /// The HTTP status it was answered with.
    pub status: u16,
    /// The answer's `status` or `error` text (`accepted`, `duplicate`, `invalid json`).
    pub note: String,
}

impl Verdict {
    /// A verdict with its hook id and note cut to their bounds.
    pub fn new(at: DateTime<Utc>, hook: &str, status: u16, note: &str) -> Self {
        let cut = |s: &str, n: usize| s.chars().take(n).collect::<String>();
        Verdict {
            at,
            hook: cut(hook, MAX_HOOK_CHARS),
            status,
            note: cut(note, MAX_NOTE_CHARS),
        }
    }

    /// The request was taken and its job started.
    pub fn accepted(&self) -> bool {
        self.status == 202
    }
}

/// Keeps one verdict (the oldest goes past [`KEPT`]).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct RecordVerdict(pub Verdict);

/// Asks for the kept verdicts, newest first.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<Verdict>")]
pub struct RecentVerdicts;

impl Handler<RecordVerdict> for Admission {
    type Result = ();
    fn handle(&mut self, RecordVerdict(verdict): RecordVerdict, _ctx: &mut Self::Context) {
        let kept = self.verdicts_mut();
        if kept.len() >= KEPT {
            kept.pop_front();
        }
        kept.push_back(verdict);
    }
}

impl Handler<RecentVerdicts> for Admission {
    type Result = MessageResult<RecentVerdicts>;
    fn handle(&mut self, _msg: RecentVerdicts, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.verdicts_mut().iter().rev().cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use actix::Actor;

    use super::*;
    use crate::base::clock::SystemClock;
    use crate::base::data_dir::DataDir;

    #[actix_rt::test]
    async fn verdicts_are_kept_newest_first_and_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let admission = Admission::in_data_dir(&data, SystemClock::shared()).start();
        let now = Utc::now();
        for i in 0..KEPT + 5 {
            let v = Verdict::new(now, &format!("hook{i}"), 202, "accepted");
            admission.send(RecordVerdict(v)).await.unwrap();
        }
        let kept = admission.send(RecentVerdicts).await.unwrap();
        assert_eq!(kept.len(), KEPT);
        assert_eq!(kept[0].hook, format!("hook{}", KEPT + 4));
        assert_eq!(kept[KEPT - 1].hook, "hook5", "the oldest five went");
    }

    #[test]
    fn what_a_stranger_sends_is_cut_to_its_bounds() {
        let v = Verdict::new(Utc::now(), &"x".repeat(1_000), 401, &"é".repeat(1_000));
        assert_eq!(v.hook.chars().count(), MAX_HOOK_CHARS);
        assert_eq!(v.note.chars().count(), MAX_NOTE_CHARS);
        assert!(!v.accepted());
    }
}
