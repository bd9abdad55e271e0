//! Function attributes (`cuFuncSetAttribute` / `cuFuncGetAttribute`) as types, gated on the CUDA
//! version that introduced them like the launch-attribute kinds: a later one is a compile error
//! naming the feature.

use std::sync::Arc;

use cudarc::driver::result as cu;
use cudarc::driver::{CudaContext, CudaFunction};

use crate::config::attr::{cuda, Reached, SharedMemoryMode};
use crate::error::{Error, KernelName};
use crate::sys;

mod sealed {
    pub trait Sealed {}
}

/// A function attribute chevron sets on a `CUfunction` (`CU_FUNC_ATTRIBUTE_*`). Sealed.
pub trait FunctionAttribute: sealed::Sealed + Copy {
    /// The driver's id. Evaluating it fails the build, naming the feature to use, when the
    /// selected CUDA version lacks the attribute.
    const ID: sys::CUfunction_attribute;
    /// The `CU_FUNC_ATTRIBUTE_*` name, for messages.
    const CUDA_NAME: &'static str;
    /// The CUDA version that introduced it, as a marker type of [`cuda`]:
    /// [`set_function_attribute`] requires `A::Since: Reached<A>`.
    type Since;
    /// The value `cuFuncSetAttribute` takes.
    fn value(&self) -> i32;
    /// The attribute from what `cuFuncGetAttribute` reports; `None` for a value this build does
    /// not know.
    fn from_value(value: i32) -> Option<Self>;
}

/// `CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE` (CUDA 13.4, feature `cuda-13040`): the
/// [`SharedMemoryMode`] of the function's launches that set none of their own (the launch
/// attribute `shared_memory_mode` overrides it). With `AllowOversized` or `PreferOversized`, a
/// launch may ask for up to `CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK` bytes of
/// shared memory (chevron's check before the launch allows that much then).
///
/// With feature `cuda-13040` (the example is compiled as a doctest under that feature only):
///
#[cfg_attr(cuda_13040, doc = "```no_run")]
#[cfg_attr(not(cuda_13040), doc = "```text")]
/// use std::sync::Arc;
///
/// use chevron::cudarc::driver::{CudaContext, CudaFunction};
/// use chevron::{set_function_attribute, FunctionSharedMemoryMode, SharedMemoryMode};
///
/// fn allow_oversized(ctx: &Arc<CudaContext>, func: &CudaFunction) -> Result<(), chevron::Error> {
///     set_function_attribute(ctx, func, FunctionSharedMemoryMode(SharedMemoryMode::AllowOversized))
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FunctionSharedMemoryMode(pub SharedMemoryMode);

impl sealed::Sealed for FunctionSharedMemoryMode {}
impl FunctionAttribute for FunctionSharedMemoryMode {
    #[cfg(cuda_13040)]
    const ID: sys::CUfunction_attribute =
        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE;
    #[cfg(not(cuda_13040))]
    const ID: sys::CUfunction_attribute = panic!(
        "`FunctionSharedMemoryMode` (CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE) needs CUDA 13.4: use \
         feature cuda-13040 or later"
    );
    const CUDA_NAME: &'static str = "CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE";
    type Since = cuda::cuda_13040;

    fn value(&self) -> i32 {
        self.0.raw() as i32
    }

    fn from_value(value: i32) -> Option<Self> {
        Some(Self(match value {
            0 => SharedMemoryMode::Default,
            1 => SharedMemoryMode::RequirePortable,
            2 => SharedMemoryMode::AllowNonPortable,
            #[cfg(cuda_13040)]
            3 => SharedMemoryMode::AllowOversized,
            #[cfg(cuda_13040)]
            4 => SharedMemoryMode::PreferOversized,
            _ => return None,
        }))
    }
}

/// Sets function attribute `attr` on `func`, a function of `ctx` (`cuFuncSetAttribute`). Only
/// attributes of the selected CUDA version compile:
///
/// ```compile_fail
/// # fn f(ctx: &std::sync::Arc<chevron::cudarc::driver::CudaContext>,
/// #      func: &chevron::cudarc::driver::CudaFunction) {
/// use chevron::{set_function_attribute, FunctionSharedMemoryMode, SharedMemoryMode};
/// // With the default feature (cuda-13000): "`FunctionSharedMemoryMode` needs a later CUDA
/// // version than this build's: use feature cuda_13040 or later".
/// let _ = set_function_attribute(ctx, func, FunctionSharedMemoryMode(SharedMemoryMode::Default));
/// # }
/// ```
///
/// `Error::Driver` naming the attribute when the driver refuses it (a driver older than the
/// attribute, or a value the function or device does not allow).
pub fn set_function_attribute<A: FunctionAttribute>(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    attr: A,
) -> Result<(), Error>
where
    A::Since: Reached<A>,
{
    ctx.bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
    // SAFETY: the function handle is live for as long as `func`.
    unsafe { cu::function::set_function_attribute(func.cu_function(), A::ID, attr.value()) }
        .map_err(|source| Error::Driver {
            call: "cuFuncSetAttribute",
            kernel: KernelName(None),
            attributes: format!("{} = {}", A::CUDA_NAME, attr.value()),
            source,
        })
}

/// Reads function attribute `A` of `func`, a function of `ctx` (`cuFuncGetAttribute`); `None`
/// for a value this build does not know.
pub fn function_attribute<A: FunctionAttribute>(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
) -> Result<Option<A>, Error>
where
    A::Since: Reached<A>,
{
    ctx.bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
    // SAFETY: the function handle is live for as long as `func`.
    unsafe { cu::function::get_function_attribute(func.cu_function(), A::ID) }
        .map(A::from_value)
        .map_err(|source| Error::Driver {
            call: "cuFuncGetAttribute",
            kernel: KernelName(None),
            attributes: A::CUDA_NAME.to_string(),
            source,
        })
}

/// Whether a launch of `func` with `config` may use oversized shared memory (CUDA 13.4): its
/// `shared_memory_mode`, else the function's own. Error path of the shared-memory check only.
#[cfg(cuda_13040)]
pub(crate) fn oversized_allowed(func: &CudaFunction, launch_mode: Option<u32>) -> bool {
    match launch_mode {
        Some(0) | None => {
            let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE;
            // SAFETY: the function handle is live for as long as `func`.
            unsafe { cu::function::get_function_attribute(func.cu_function(), attr) }
                .is_ok_and(|v| v >= 3)
        }
        Some(mode) => mode >= 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes() -> Vec<SharedMemoryMode> {
        vec![
            SharedMemoryMode::Default,
            SharedMemoryMode::RequirePortable,
            SharedMemoryMode::AllowNonPortable,
            #[cfg(cuda_13040)]
            SharedMemoryMode::AllowOversized,
            #[cfg(cuda_13040)]
            SharedMemoryMode::PreferOversized,
        ]
    }

    #[test]
    fn values_round_trip() {
        for (k, mode) in modes().into_iter().enumerate() {
            let attr = FunctionSharedMemoryMode(mode);
            assert_eq!(attr.value(), k as i32);
            assert_eq!(FunctionSharedMemoryMode::from_value(k as i32), Some(attr));
            assert_eq!(mode.allows_oversized(), k >= 3);
        }
        assert_eq!(
            FunctionSharedMemoryMode::from_value(modes().len() as i32),
            None
        );
        assert_eq!(FunctionSharedMemoryMode::from_value(-1), None);
    }

    /// The modes of this build are the rules crate row's values, in order: those as old as the kind in
    /// every build (the type exists before its kind is usable), the later ones
    /// (`"AllowOversized" since cuda_13040`) from their version on.
    #[test]
    fn modes_are_the_rows_values_of_this_version() {
        use crate::config::attr::Attribute;
        use chevron_cuda_rules::kinds::{variant_since, ValueForm};
        let kind = <SharedMemoryMode as Attribute>::KIND;
        let ValueForm::Enum(variants) = kind.form else {
            panic!("shared_memory_mode is an enum kind");
        };
        let want: Vec<&str> = variants
            .iter()
            .copied()
            .filter(|v| {
                variant_since(kind.key, v)
                    .is_some_and(|s| s <= crate::config::attr::CUDA_VERSION.max(kind.since))
            })
            .collect();
        let have: Vec<String> = modes().iter().map(|m| format!("{m:?}")).collect();
        assert_eq!(have, want);
    }

    #[cfg(cuda_13040)]
    #[test]
    fn values_are_the_drivers() {
        use sys::CUsharedMemoryMode as S;
        let want = [
            S::CU_SHARED_MEMORY_MODE_DEFAULT,
            S::CU_SHARED_MEMORY_MODE_REQUIRE_PORTABLE,
            S::CU_SHARED_MEMORY_MODE_ALLOW_NON_PORTABLE,
            S::CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY,
            S::CU_SHARED_MEMORY_MODE_PREFER_OVERSIZED_SHARED_MEMORY,
        ];
        for (mode, want) in modes().into_iter().zip(want) {
            assert_eq!(FunctionSharedMemoryMode(mode).value(), want as i32);
            // The launch attribute carries the same number at offset 0.
            use crate::config::attr::Attribute;
            assert_eq!(crate::config::attr::u32_at(&mode.value(), 0), want as u32);
        }
        assert_eq!(FunctionSharedMemoryMode::ID as u32, 17);
    }
}
