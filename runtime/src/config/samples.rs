//! The kinds' test samples as the tests use them: each kind's value union for calling the driver
//! directly, and a config holding every kind at once. Generated from the rules crate table's rows,
//! like the kinds' impls in `attr.rs`, from each type's `sample` (beside the type there): a kind
//! whose type has none does not compile.

use crate::config::attr::{Attribute, Samples};
use crate::config::LaunchConfig;
use crate::sys;

/// A sample's `cfg.with(…)`/`cfg.with_stream(…)` for each position a config holds.
macro_rules! fill {
    ($cfg:ident, $sample:ident, Launch) => {
        $cfg = $cfg.with($sample);
    };
    ($cfg:ident, $sample:ident, Stream) => {
        $cfg = $cfg.with_stream($sample);
    };
    ($cfg:ident, $sample:ident, GraphNode) => {};
}

macro_rules! samples {
    ($($key:ident: $ty:ident $(<$lt:lifetime>)? = $cuda:ident ($id:literal),
        at [$($position:ident),*], form $form:ident $([$($variant:literal $(since $variant_since:ident)?),*])?,
        since $since:ident, cc $cc:tt, value $value:literal $(, note $note:literal)?;)*) => {
        impl<'a> Samples<'a> {
            /// The value union of kind `id`'s sample, for calling the driver directly; `None`
            /// for an event kind without an event, or an id that is no kind.
            pub fn value(&self, id: u32) -> Option<sys::CUlaunchAttributeValue> {
                match id {
                    $($id => crate::config::attr::$ty::sample(self).map(|sample| sample.value()),)*
                    _ => None,
                }
            }

            /// `config` with the sample of every kind of this build it can hold: each launch
            /// kind in the attribute array, each stream kind among the stream attributes.
            pub fn fill(&self, mut config: LaunchConfig<'a>) -> LaunchConfig<'a> {
                $(
                    #[cfg($since)]
                    if let Some(sample) = crate::config::attr::$ty::sample(self) {
                        $(fill!(config, sample, $position);)*
                    }
                )*
                config
            }
        }
    };
}

chevron_cuda_rules::for_each_kind!(samples);
