//! A kernel's launch rules against a config: the quick compares of a typed launch
//! ([`LaunchRules`], folded at compile time) and every rule one by one ([`Kernel::check_launch`]).

use crate::config::attr::{Attribute, Cooperative, ProgrammaticSerialization};
use crate::config::dim::Dim3;
use crate::config::{bit, LaunchConfig};
use crate::error::{Error, KernelName};
use chevron_cuda_rules::fit::{self, KernelInfo, LaunchFacts, Rule};

use super::Kernel;

impl Kernel {
    /// The config part of [`Self::__check`], which needs no driver (shared with the host-cost
    /// benchmark). Not a public API.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __check_config(
        &self,
        rules: LaunchRules,
        config: &LaunchConfig<'_>,
    ) -> Result<(), Error> {
        if !rules.known {
            return self.check_nvrtc(rules.info, config);
        }
        if config.plainly_valid() & rules.pass(config) {
            Ok(())
        } else {
            self.check_each_rule(rules.info, config)
        }
    }

    /// [`Self::__check_config`] for a CUDA C kernel: with the rules read from NVRTC's output.
    #[inline(never)]
    fn check_nvrtc(&self, declared: &KernelInfo, config: &LaunchConfig<'_>) -> Result<(), Error> {
        let rules = self.nvrtc_rules(declared);
        if config.plainly_valid() & rules.pass(config) {
            Ok(())
        } else {
            self.check_each_rule(rules.info, config)
        }
    }

    /// [`Self::check_launch`] out of the launch's way: the launches the quick compares of
    /// [`Self::__check_config`] do not settle (a cluster, a kernel whose PTX fixes its block, a
    /// broken rule).
    #[cold]
    #[inline(never)]
    fn check_each_rule(&self, info: &KernelInfo, config: &LaunchConfig<'_>) -> Result<(), Error> {
        self.check_launch(info, config)
    }

    /// The rules of a CUDA C kernel, from NVRTC's output (read when the kernel was loaded);
    /// none before that.
    #[inline]
    fn nvrtc_rules(&self, declared: &KernelInfo) -> LaunchRules {
        match self.cache().nvrtc_info.get() {
            Some(rules) => *rules,
            None => self.nvrtc_rules_cold(declared),
        }
    }

    #[cold]
    fn nvrtc_rules_cold(&self, declared: &KernelInfo) -> LaunchRules {
        match self.nvrtc_info_for(declared) {
            Some(_) => self
                .cache()
                .nvrtc_info
                .get()
                .copied()
                .unwrap_or(LaunchRules::NONE),
            None => LaunchRules::NONE,
        }
    }

    /// Checks `config` against the rules the kernel's PTX fixes ([`KernelInfo`]): the block
    /// against `.reqntid`/`.maxntid`, the cluster and grid against `.reqnctapercluster` and
    /// `.maxclusterrank`, `programmatic_serialization` against `griddepcontrol.wait`,
    /// `cooperative` against a grid-wide barrier. `info` is the declaration's
    /// (`<KERNEL as TypedKernel>::INFO`); for CUDA C the rules come from NVRTC's output, read
    /// when the kernel was loaded (call this after [`Self::get`]). A few comparisons.
    ///
    /// The config's own limits come first ([`LaunchConfig::validate`], as
    /// [`Error::InvalidConfig`]): an extent that is no extent (a grid of `u64::MAX`, a block of
    /// `-128`) is reported as itself, not as whatever placeholder a kernel rule would see.
    ///
    /// ```
    /// use chevron::{Kernel, KernelInfo, LaunchConfig};
    /// static K: Kernel = Kernel::ptx("k", "k", "/k.ptx", ".entry k() .maxntid 64 { ret; }");
    /// let info = KernelInfo { known: true, maxntid: Some([64, 1, 1]), ..KernelInfo::UNKNOWN };
    /// assert!(K.check_launch(&info, &LaunchConfig::new(1u32, 64u32)).is_ok());
    /// assert!(K.check_launch(&info, &LaunchConfig::new(1u32, 128u32)).is_err());
    /// ```
    #[inline]
    pub fn check_launch(&self, info: &KernelInfo, config: &LaunchConfig<'_>) -> Result<(), Error> {
        if let Err(violation) = config.validate() {
            return Err(Error::InvalidConfig {
                kernel: KernelName(Some(self.name)),
                violation,
            });
        }
        let info = if info.known {
            info
        } else {
            match self.nvrtc_info_for(info) {
                Some(i) => i,
                None => return Ok(()),
            }
        };
        let arr = |d: Dim3| [d.x, d.y, d.z];
        let kernel_block = config.uses_kernel_block();
        let facts = LaunchFacts {
            grid: Some(arr(config.grid())),
            // The kernel's own block is no block the rules on `.reqntid`/`.maxntid` look at.
            block: (!kernel_block).then(|| arr(config.block())),
            kernel_block,
            cluster: Some(config.cluster().map(arr)),
            cooperative: Some(config.has::<Cooperative>()),
            programmatic_serialization: Some(config.has::<ProgrammaticSerialization>()),
        };
        match info.check(&facts) {
            Ok(()) => Ok(()),
            Err(rule) => Err(self.constraint_error(info, rule, &facts)),
        }
    }

    /// The rules of a CUDA C kernel, from NVRTC's output and the declaration's options.
    fn nvrtc_info_for(&self, declared: &KernelInfo) -> Option<&KernelInfo> {
        if let Some(rules) = self.cache().nvrtc_info.get() {
            return Some(rules.info);
        }
        let entry = self.cache().nvrtc_entry.get()?;
        let file = format!("NVRTC's PTX of {}", self.source.path());
        let text = fit::read_info(
            entry,
            self.name,
            &file,
            declared.no_upstream_reads,
            declared.cooperative,
        );
        // Leaked once per kernel and process (a lost race leaks one more).
        let info: &'static KernelInfo = Box::leak(Box::new(text.leak()));
        Some(
            self.cache()
                .nvrtc_info
                .get_or_init(|| LaunchRules::of(info))
                .info,
        )
    }

    /// The rule's message and what this launch held of the rule's subject.
    #[cold]
    fn constraint_error(&self, info: &KernelInfo, rule: Rule, facts: &LaunchFacts) -> Error {
        let this = rule.subject().describe(facts).unwrap_or_default();
        Error::KernelConstraint {
            kernel: KernelName(Some(self.name)),
            message: format!("{} (this launch: {this})", info.message(rule)),
        }
    }
}

/// A kernel's launch rules ([`KernelInfo`]) folded into what one launch can check in a few
/// compares: whether any rule looks at the clusters or the grid (when one does, the launch goes
/// through every rule), and which launch-attribute kinds (`cooperative`,
/// `programmatic_serialization`) break a rule by their presence or their absence; the block
/// rules (`.reqntid`, `.maxntid`) are compared with the block directly. `#[kernel]` makes it at
/// compile time from the declaration's `TypedKernel::INFO`, so that in a launch the info is a
/// constant and the comparisons with a rule the PTX does not have vanish. Not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct LaunchRules {
    info: &'static KernelInfo,
    /// The rules come from the kernel's PTX (else from NVRTC's output, at run time).
    known: bool,
    /// The rules come from the PTX and none looks at the clusters or the grid: the block and
    /// the kinds below decide.
    pub(super) quick: bool,
    /// Kinds (their bits in a config's `present`) whose presence breaks a rule.
    pub(super) refused: u64,
    /// Kinds whose absence breaks a rule.
    pub(super) required: u64,
}

impl LaunchRules {
    /// No rule (a CUDA C kernel before NVRTC's output was read).
    const NONE: LaunchRules = LaunchRules {
        info: &KernelInfo::UNKNOWN,
        known: true,
        quick: true,
        refused: 0,
        required: 0,
    };

    /// `info`'s rules. The kinds come from the rules themselves
    /// ([`KernelInfo::check_cooperative`] and [`KernelInfo::check_serialization`], each asked
    /// with and without its kind), so that they cannot drift apart.
    pub const fn of(info: &'static KernelInfo) -> Self {
        let cooperative = bit(<Cooperative as Attribute>::KIND.id);
        let serialization = bit(<ProgrammaticSerialization as Attribute>::KIND.id);
        let (mut refused, mut required) = (0, 0);
        if info.check_cooperative(true).is_err() {
            refused |= cooperative;
        }
        if info.check_cooperative(false).is_err() {
            required |= cooperative;
        }
        if info.check_serialization(true).is_err() {
            refused |= serialization;
        }
        if info.check_serialization(false).is_err() {
            required |= serialization;
        }
        LaunchRules {
            info,
            known: info.known,
            quick: info.known && !info.fixes_clusters(),
            refused,
            required,
        }
    }

    /// Whether `config` keeps every rule, decided on its block and the kinds present; `false`
    /// also where the clusters or the grid would have to be looked at, and for the kernel's own
    /// block shape (checked rule by rule).
    #[inline(always)]
    fn pass(&self, config: &LaunchConfig<'_>) -> bool {
        let present = config.present();
        let b = config.block();
        self.quick
            & !config.uses_kernel_block()
            & self.info.check_block([b.x, b.y, b.z]).is_ok()
            & (present & self.refused == 0)
            & (present & self.required == self.required)
    }
}
