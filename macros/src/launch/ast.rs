//! The IR of `launch!` and `config!`: what [`super::parse`] reads and [`super::check`] turns into
//! a [`Plan`] for [`super::expand`]. Every node keeps the spans its messages point at.

use proc_macro2::Span;
use syn::{Expr, Ident, Path};

use chevron_cuda_rules::kinds::Position;

use super::keys::{Key, Place};

/// `launch!(KERNEL<<<…>>>(ARGS…))`.
pub struct LaunchInput {
    /// The kernel.
    pub kernel: Kernel,
    /// What is between `<<<` and `>>>`.
    pub chevrons: Chevrons,
    /// The kernel's arguments.
    pub args: Vec<Expr>,
}

/// `config!(<<<…>>>)`.
pub struct ConfigInput {
    /// What is between `<<<` and `>>>`.
    pub chevrons: Chevrons,
}

/// Which kernel is launched.
pub enum Kernel {
    /// A `#[kernel]` item: `PATH::kernel().launch(stream, &config, (args…,))`, typed by rustc.
    Typed(Path),
    /// `dyn f` / `dyn (expr)`: a `CudaFunction`, arguments passed untyped.
    Dyn {
        /// The `dyn` keyword.
        dyn_span: Span,
        /// The function expression.
        func: Expr,
    },
}

/// The contents of `<<<…>>>`, in order.
pub struct Chevrons {
    /// The `<<<` token.
    pub open: Span,
    /// The `>>>` token.
    pub close: Span,
    /// The comma-separated entries.
    pub entries: Vec<Entry>,
}

/// One comma-separated entry between `<<<` and `>>>`.
pub enum Entry {
    /// A positional expression: grid, block, stream.
    Position(Expr),
    /// An attribute, `shared = …` or `stream(…)`.
    Item(Item),
}

/// A non-positional entry.
pub enum Item {
    /// `KEY` or `KEY = EXPR` in the launch list (including `shared`).
    Attr(Attr),
    /// `KEYWORD(ATTR, …)`: `stream(SATTR, …)`.
    Group(Group),
}

/// `KEY` or `KEY = EXPR`.
pub struct Attr {
    /// The key as written.
    pub key: Ident,
    /// The value, when given.
    pub value: Option<Expr>,
}

/// `KEYWORD(ATTR, …)`: the attributes of one group's position (`stream(SATTR, …)`).
pub struct Group {
    /// The place the keyword names.
    pub place: &'static Place,
    /// The keyword.
    pub ident: Ident,
    /// The attributes inside the parentheses.
    pub attrs: Vec<Attr>,
}

/// What the check phase decided: everything `expand` needs, nothing it must check.
pub struct Plan {
    /// The grid expression.
    pub grid: Expr,
    /// The block expression (`_` for the kernel's own block shape).
    pub block: Expr,
    /// `_` in the block position, where it is written: the kernel's own block shape
    /// (`CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM`), the grid handed over as written.
    pub kernel_block: Option<Span>,
    /// The stream expression (`launch!` only).
    pub stream: Option<Expr>,
    /// `shared = EXPR`.
    pub shared: Option<Expr>,
    /// The attributes of every position (the launch list's are entries of the
    /// `cuLaunchKernelEx` attribute array), in source order.
    pub settings: Vec<Setting>,
    /// `non_portable_cluster`: clusters of 9 to 16 blocks allowed.
    pub non_portable_cluster: bool,
    /// `shared` and the attributes as written, interleaved: the order their values are
    /// evaluated in.
    pub order: Vec<Slot>,
    /// `<<<config = CFG, STREAM>>>`: a prebuilt `LaunchConfig` (`launch!` only); the grid and
    /// block are then placeholders and there are no items.
    pub prebuilt: Option<Expr>,
}

impl Plan {
    /// The settings of `position`, in source order.
    pub fn at(&self, position: Position) -> impl Iterator<Item = &Setting> {
        self.settings.iter().filter(move |s| s.position == position)
    }
}

/// One item of the launch list or of a group, by where [`Plan`] holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// [`Plan::shared`].
    Shared,
    /// `Plan::settings[i]`.
    Setting(usize),
}

/// One checked attribute.
pub struct Setting {
    /// The key's row.
    pub key: Key,
    /// Where it goes: the launch list's position or its group's.
    pub position: Position,
    /// Where the key is written.
    pub span: Span,
    /// Its value.
    pub value: Value,
}

/// A checked attribute value.
pub enum Value {
    /// A bare flag, or `flag = true`.
    On,
    /// `flag = EXPR` with a `bool` expression (or `false`).
    Flag(Expr),
    /// A variant of the kind's enum: `Spin`.
    Variant(Ident),
    /// The payload for the kind's constructor (dim, i32, percent, event) or, for
    /// [`super::keys::ValueForm::Enum`] and [`super::keys::ValueForm::Expr`], a value of the
    /// kind's type.
    Expr(Expr),
}
