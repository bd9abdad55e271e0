//! The launch-attribute kinds and where the driver accepts each one.
//!
//! CUDA has one enum of launch attributes (`CUlaunchAttributeID`) for three entry points,
//! `cuLaunchKernelEx`, `cuStreamSetAttribute` and `cuGraphKernelNodeSetAttribute`, but each kind
//! is accepted by only some of them. chevron gives every kind its own type and declares each
//! kind once, as a row of the rules crate's table ([`chevron_cuda_rules::for_each_kind!`]): the
//! impls below are generated from the rows (the id, the version gate and its message, a marker
//! trait per [`Position`](chevron_cuda_rules::kinds::Position): [`LaunchAttribute`],
//! [`StreamAttribute`], [`GraphAttribute`]), so a kind in the wrong place is a compile error and
//! there is no second list to keep in step. What remains here per kind is its type: the value,
//! its encoding (`encode`), its decoding where a stream reports it (`from_stream`) and a valid
//! value for the tests (`sample`). The table, with the measurements behind it, is
//! `ATTRIBUTES.md`.
//!
//! Every type exists with every CUDA feature. A kind the selected CUDA version lacks (such as
//! [`NvlinkCentric`] with `cuda-12080`) is a compile error where it is used: the entry points
//! require `A::Since: Reached<A>`, whose message names the feature ("`NvlinkCentric` needs a
//! later CUDA version than this build's: use feature cuda_13000 or later"; a type name cannot
//! hold the hyphen). Its [`Attribute::ID`] fails to evaluate with "`nvlink_centric` needs CUDA
//! 13.0: use feature cuda-13000 or later", for code that reaches the id another way.

use crate::sys;
use chevron_cuda_rules::kinds::{self as spec, Kind};
use cudarc::driver::CudaEvent;

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

mod enums;
mod flags;
mod portable;
mod values;
mod window;

pub use enums::*;
pub use flags::*;
pub use portable::*;
pub use values::*;
pub use window::*;

/// A launch-attribute kind: one `CU_LAUNCH_ATTRIBUTE_*` value with its payload.
///
/// Sealed: the kinds are the ones in this module. Where a kind is accepted is said by
/// [`LaunchAttribute`], [`StreamAttribute`] and [`GraphAttribute`].
pub trait Attribute: Sealed + Copy {
    /// The driver's id for this kind. Evaluating it fails the build, naming the feature to use,
    /// when the selected CUDA version lacks the kind.
    const ID: sys::CUlaunchAttributeID;
    /// The kind's row of the rules crate table.
    const KIND: &'static Kind;
    /// The `CU_LAUNCH_ATTRIBUTE_*` name, for messages.
    const CUDA_NAME: &'static str = Self::KIND.cuda_name;
    /// The key that names this kind in `launch!` and `config!`.
    const KEY: &'static str = Self::KIND.key;
    /// The CUDA version that introduced the kind, as a marker type of [`cuda`]; the entry
    /// points require `A::Since: Reached<A>`, so a kind of a later version than the selected one
    /// is an error that names the feature to use.
    type Since;
    /// The driver's value union for this attribute.
    fn value(&self) -> sys::CUlaunchAttributeValue;
}

/// Implemented by the CUDA versions up to the selected one: `V: Reached<K>` says the build has
/// the kinds version `V` introduced, among them `K`.
#[diagnostic::on_unimplemented(
    message = "`{K}` needs a later CUDA version than this build's: use feature {Self} or later",
    label = "not in the selected CUDA version",
    note = "the feature is spelled with a hyphen (`cuda-13000` for `cuda_13000`); with the default features on, also set `default-features = false`"
)]
pub trait Reached<K> {}

macro_rules! versions {
    ($($name:ident = $number:literal),* $(,)?) => {
        /// Marker types for the CUDA versions, named like their Cargo features (`cuda_13000`
        /// for `cuda-13000`), so that an error about a kind of a later version can name the
        /// feature.
        pub mod cuda {
            $(
                #[doc = concat!("The CUDA version of feature `cuda-", $number, "`.")]
                #[allow(non_camel_case_types)]
                #[derive(Debug)]
                pub enum $name {}
            )*
        }

        $(
            #[cfg($name)]
            #[diagnostic::do_not_recommend]
            impl<K> Reached<K> for cuda::$name {}
        )*
    };
}

chevron_cuda_rules::for_each_cuda_version!(versions);

/// A kind that `cuLaunchKernelEx` accepts in its attribute array.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a stream attribute: the driver rejects it in cuLaunchKernelEx (CUDA_ERROR_INVALID_VALUE)",
    label = "stream-only attribute passed as a launch attribute",
    note = "apply it to the launch's stream instead: `.with_stream(...)` on a `LaunchConfig`, `stream(...)` in `launch!`, or `chevron::set_stream_attribute`"
)]
pub trait LaunchAttribute: Attribute {}

/// A kind that `cuStreamSetAttribute` accepts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a launch attribute: the driver rejects it in cuStreamSetAttribute",
    label = "launch-only attribute set on a stream",
    note = "pass it to the launch instead: `.with(...)` on a `LaunchConfig`, or the launch list of `launch!`"
)]
pub trait StreamAttribute: Attribute {
    /// Decodes what `cuStreamGetAttribute` reports; `None` where the stream has no value set
    /// (the driver reports an out-of-range value such as -1 for a fresh stream).
    fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self>;
}

/// A launch-attribute kind the driver accepts on a graph kernel node
/// (`cuGraphKernelNodeSetAttribute`): the rules crate table's graph-node position.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be set on a graph kernel node: the driver rejects it there",
    label = "not accepted by `cuGraphKernelNodeSetAttribute`",
    note = "set it on the launch inside the capture instead (`programmatic_serialization` there becomes a programmatic edge of the graph)"
)]
pub trait GraphAttribute: Attribute {}

/// A flag kind: present means on; `launch!` writes it as a bare key.
pub trait FlagAttribute: LaunchAttribute + Default {}

/// One row of the placement table, as data (for messages, docs and the agreement test): the
/// spec table's row.
pub type KindInfo = Kind;

/// The CUDA version this build selected, as cudarc's feature number (`13000` for `cuda-13000`).
pub const CUDA_VERSION: u32 = parse_version(env!("CHEVRON_CUDA_VERSION"));

const fn parse_version(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut v = 0;
    let mut i = 0;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

#[inline]
fn empty() -> sys::CUlaunchAttributeValue {
    sys::CUlaunchAttributeValue { pad: [0; 64] }
}

/// The first `N` bytes of a value union, to decode without reading an enum field that may hold a
/// discriminant outside its Rust enum (the driver reports -1 for "unset").
#[inline]
fn bytes<const N: usize>(value: &sys::CUlaunchAttributeValue, at: usize) -> [u8; N] {
    // SAFETY: `pad` spans the whole union and every byte pattern is a valid `c_char`.
    let pad = unsafe { value.pad };
    core::array::from_fn(|i| pad[at + i] as u8)
}

#[inline]
pub(crate) fn u32_at(value: &sys::CUlaunchAttributeValue, at: usize) -> u32 {
    u32::from_ne_bytes(bytes(value, at))
}

/// Writes `data` at byte `at` of a value union. Values are encoded by offset, not through the
/// union's named fields: bindgen renames the fields' types between CUDA versions
/// (`CUlaunchAttributeValue_union__bindgen_ty_4` is one struct in 12.4 and another in 12.8),
/// while the C layout stays.
#[inline]
fn put<const N: usize>(value: &mut sys::CUlaunchAttributeValue, at: usize, data: [u8; N]) {
    // SAFETY: writing `c_char`s into `pad`, which spans the whole union.
    let pad = unsafe { &mut value.pad };
    for (i, b) in data.into_iter().enumerate() {
        pad[at + i] = b as core::ffi::c_char;
    }
}

/// A value union holding one 32-bit field at offset 0 (flags, enums, percentages).
#[inline]
fn word(v: u32) -> sys::CUlaunchAttributeValue {
    let mut value = empty();
    put(&mut value, 0, v.to_ne_bytes());
    value
}

/// The spec row with driver id `id`, at compile time.
const fn row(id: u32) -> &'static Kind {
    match spec::by_id(id) {
        Some(k) => k,
        None => panic!("a runtime kind without a row in the rules crate table"),
    }
}

/// What the kinds' test samples are built from: the GPU tests pass a real event (created with
/// timing disabled) and a device buffer; a CPU test passes no event and any address. Each kind's
/// `sample` is beside its type; `samples.rs` turns them into values and configs. Not a public
/// API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Samples<'a> {
    /// An event for the event kinds; without one they have no sample.
    pub event: Option<&'a CudaEvent>,
    /// A device address and length for an access policy window.
    pub window: (sys::CUdeviceptr, usize),
}

/// The impls of one row of the rules crate table (`kinds!` calls it once per row).
macro_rules! kind {
    ($key:ident, $ty:ident $generics:tt, $cuda:ident ($id:literal), [$($position:ident)*],
     $form:ident, $since:ident) => {
        impl_generic!($generics Sealed for $ty);
        impl_generic!($generics Attribute for $ty {
            #[cfg($since)]
            const ID: sys::CUlaunchAttributeID = sys::CUlaunchAttributeID::$cuda;
            #[cfg(not($since))]
            const ID: sys::CUlaunchAttributeID = {
                const MISSING: spec::ConstStr<{ spec::MESSAGE_BYTES }> =
                    row($id).missing_message_const();
                panic!("{}", MISSING.as_str())
            };
            const KIND: &'static Kind = row($id);
            type Since = cuda::$since;
            #[inline]
            fn value(&self) -> sys::CUlaunchAttributeValue {
                self.encode()
            }
        });
        $(position!($position, $ty $generics);)*
        form!($form, $ty $generics);
        // The build script's `cfg`s and this build's CUDA version agree.
        const _: () = assert!(row($id).in_version(CUDA_VERSION) == cfg!($since));
        // The row's id is the driver's.
        #[cfg($since)]
        const _: () = assert!(sys::CUlaunchAttributeID::$cuda as u32 == $id);
    };
}

/// `impl<'a> Trait for Type<'a> { … }` or `impl Trait for Type { … }`, by the row's generics.
macro_rules! impl_generic {
    ([$($lt:lifetime)?] $trait:ident for $ty:ident) => {
        impl$(<$lt>)? $trait for $ty$(<$lt>)? {}
    };
    ([$($lt:lifetime)?] $trait:ident for $ty:ident { $($body:tt)* }) => {
        impl$(<$lt>)? $trait for $ty$(<$lt>)? { $($body)* }
    };
    (@hidden [$($lt:lifetime)?] $trait:ident for $ty:ident { $($body:tt)* }) => {
        // The kinds a trait is implemented for are the table's: rustc need not list them when a
        // kind is used in the wrong place.
        #[diagnostic::do_not_recommend]
        impl$(<$lt>)? $trait for $ty$(<$lt>)? { $($body)* }
    };
}

/// The marker trait of one position (a [`Position`](chevron_cuda_rules::kinds::Position)).
macro_rules! position {
    (Launch, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics LaunchAttribute for $ty {});
    };
    (Stream, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics StreamAttribute for $ty {
            fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self> {
                Self::from_stream(value)
            }
        });
    };
    (GraphNode, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics GraphAttribute for $ty {});
    };
}

/// What a value form adds: flags are [`FlagAttribute`]s.
macro_rules! form {
    (Flag, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics FlagAttribute for $ty {});
    };
    ($form:ident, $ty:ident $generics:tt) => {};
}

macro_rules! kinds {
    ($($key:ident: $ty:ident $(<$lt:lifetime>)? = $cuda:ident ($id:literal),
        at [$($position:ident),*], form $form:ident $([$($variant:literal $(since $variant_since:ident)?),*])?,
        since $since:ident, cc $cc:tt, value $value:literal $(, note $note:literal)?;)*) => {
        $(kind!($key, $ty [$($lt)?], $cuda ($id), [$($position)*], $form, $since);)*

        /// Every kind this build's CUDA version has, in the driver's id order: the rules crate table's
        /// rows for this version.
        pub const KINDS: &[KindInfo] = &[$(
            #[cfg($since)]
            *row($id),
        )*];

        /// The driver's id for the kind with number `id`, if this build's CUDA version has it
        /// (for code that talks to the driver directly, such as the placement test).
        pub fn raw_id(id: u32) -> Option<sys::CUlaunchAttributeID> {
            match id {
                $(
                    #[cfg($since)]
                    $id => Some(sys::CUlaunchAttributeID::$cuda),
                )*
                _ => None,
            }
        }
    };
}

chevron_cuda_rules::for_each_kind!(kinds);

/// The row of [`KINDS`] for a driver id, if this build knows it.
pub fn kind_info(id: sys::CUlaunchAttributeID) -> Option<&'static KindInfo> {
    KINDS.iter().find(|k| k.id == id as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_has_the_kinds_of_its_version() {
        assert!(spec::CUDA_VERSIONS.contains(&CUDA_VERSION));
        for kind in spec::KINDS {
            assert_eq!(
                raw_id(kind.id).is_some(),
                kind.in_version(CUDA_VERSION),
                "{}",
                kind.key
            );
            assert_eq!(KINDS.contains(kind), kind.in_version(CUDA_VERSION));
        }
    }

    #[test]
    fn every_kind_has_a_sample_but_events_need_an_event() {
        let samples = Samples {
            event: None,
            window: (0x1000, 256),
        };
        for kind in spec::KINDS {
            let event = kind.form == spec::ValueForm::Event;
            assert_eq!(samples.value(kind.id).is_none(), event, "{}", kind.key);
        }
        assert!(samples.value(15).is_none() && samples.value(0).is_none());
    }
}
