//! Why a judge could not be built or a request written.

use super::SpecError;
use crate::prompt::PromptError;

#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    /// The spec names what the store lacks.
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The protocol's prompt files cannot be read.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// A proposition's precondition does not parse.
    #[error("{0}")]
    Precondition(String),
    #[error("empty batch")]
    EmptyBatch,
    #[error("item '{0}' is not in the store")]
    NoItem(String),
    /// A rubric example.
    #[error("example '{0}' is not in the store")]
    NoExample(String),
    #[error("conversation '{0}' is not in the store")]
    NoConversation(String),
    #[error("perspective '{0}' is not in the store")]
    NoPerspective(String),
    #[error("unknown dimension '{0}'")]
    UnknownDimension(String),
    #[error("conversation '{conversation}' has no guideline '{guideline}'")]
    NoGuideline {
        conversation: String,
        guideline: String,
    },
    /// An item to preview that has nothing to judge.
    #[error("the item has no classifications")]
    NoClassifications,
    #[error("an unclosed '{{{{' in the claim")]
    UnclosedClaimVariable,
    /// A claim variable the item has no value for (a typo must not
    /// silently become an empty string).
    #[error("the claim variable {{{{{name}}}}} has no value for item '{item}'")]
    NoClaimValue { name: String, item: String },
}
