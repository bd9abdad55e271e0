//! Why a parameter's writes are unknown, and the words for it.

use crate::ptx::{Callee, Site, UnseenCall};

/// Why the reader cannot tell whether an entry writes through a parameter
/// ([`Entry::write_doubts`](super::Entry::write_doubts)): where its value leaves what is
/// followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteDoubt {
    /// Passed to a call whose code the file does not hold: a function of another module
    /// (relocatable code), one declared without a body, or a call through a function pointer.
    Call(UnseenCall),
    /// Stored to memory (global or shared), from where other code may load it and write
    /// through it: the store's place.
    Stored(Site),
    /// The parameter's address is taken (`mov.b64 %rd1, k_param_0`): what is read through it
    /// is not followed.
    AddressTaken(Site),
    /// A function with more than 64 pointer slots, or a body whose flow did not settle.
    Limit,
}

impl WriteDoubt {
    /// The reason in words, for messages, without its place ([`WriteDoubt::site`]): "passes
    /// it to `f`, an `.extern .func` defined in another module".
    pub fn describe(&self) -> String {
        match self {
            WriteDoubt::Call(call) => match &call.callee {
                Callee::Named {
                    name,
                    external: true,
                } => format!(
                    "passes it to `{}`, an `.extern .func` defined in another module",
                    crate::cpp::display_name(name)
                ),
                Callee::Named { name, .. } => format!(
                    "passes it to `{}`, which the file declares but does not define",
                    crate::cpp::display_name(name)
                ),
                Callee::Indirect => "passes it to a function called through a pointer".into(),
            },
            WriteDoubt::Stored(_) => {
                "stores the pointer to memory, from where other code may write through it".into()
            }
            WriteDoubt::AddressTaken(_) => "takes the parameter's address".into(),
            WriteDoubt::Limit => {
                "passes it through a function the write analysis cannot follow to the end \
                 (more than 64 pointer slots, or a flow that does not settle)"
                    .into()
            }
        }
    }

    /// Where the pointer leaves what is followed: the call, the store, the use of its address.
    pub fn site(&self) -> Option<&Site> {
        match self {
            WriteDoubt::Call(call) => Some(&call.site),
            WriteDoubt::Stored(site) | WriteDoubt::AddressTaken(site) => Some(site),
            WriteDoubt::Limit => None,
        }
    }
}
