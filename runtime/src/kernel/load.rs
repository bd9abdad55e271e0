//! Loading, the cold path: the module per (context, file), NVRTC's output checked against the
//! declaration, the variant of a kernel's PTX for a device, the function in its slot.

use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule};

use crate::driver::device::ensure_driver;
use crate::error::{Error, KernelName};
use crate::nvrtc;
use crate::ptx::{self, Unresolved};
use chevron_cuda_rules::target::{self, Version};

use super::{Kernel, KernelSource, PtxVariant};

impl Kernel {
    #[cold]
    pub(super) fn get_cold(
        &self,
        ctx: &Arc<CudaContext>,
        key: usize,
    ) -> Result<(&CudaFunction, usize), Error> {
        ensure_driver()?;
        let _loader = lock(&LOADER);
        // Another thread may have loaded it while this one waited.
        for slot in &self.cache().slots {
            match slot.get() {
                Some((k, f, v)) if *k == key => return Ok((f, *v)),
                Some(_) => {}
                None => {
                    let (func, variant) = self.load(ctx)?;
                    // Writers hold LOADER, so the slot is still empty.
                    let (_, f, v) = slot.get_or_init(|| (key, func, variant));
                    return Ok((f, *v));
                }
            }
        }
        let mut overflow = lock(&self.cache().overflow);
        if let Some((_, f, v)) = overflow.iter().find(|(k, _, _)| *k == key) {
            return Ok((f, *v));
        }
        let (func, variant) = self.load(ctx)?;
        // Leaked once per context beyond SLOTS, so the reference can outlive the lock.
        let f: &'static CudaFunction = Box::leak(Box::new(func));
        overflow.push((key, f, variant));
        Ok((f, variant))
    }

    /// Loads (or reuses) the module and resolves the function, and says which PTX variant it
    /// loaded (`0` for a kernel of one file). Called with LOADER held.
    fn load(&self, ctx: &Arc<CudaContext>) -> Result<(CudaFunction, usize), Error> {
        let kernel = KernelName(Some(self.name));
        let one;
        let variants: &[PtxVariant] = match self.source {
            KernelSource::Ptx { path, text } => {
                one = [PtxVariant::new(path, text)];
                &one
            }
            KernelSource::PtxVariants { variants } => variants,
            KernelSource::Cuda {
                path,
                text,
                program,
            } => {
                if std::str::from_utf8(text.as_bytes()).is_err() {
                    // Embedded with `include_bytes!` (`embedded_text`): see the PTX case.
                    return Err(Error::Incompatible {
                        kernel,
                        message: format!(
                            "`{path}` is not UTF-8 text: it changed while the crate was \
                             compiled; build again"
                        ),
                    });
                }
                let compiled = nvrtc::compiled(ctx, path, text, program, kernel)?;
                let entry = self.check_nvrtc_output(&compiled.ptx, compiled.lowered.as_deref())?;
                // One module per compiled program: declarations of one file with other
                // options or template instances have their own.
                let key = ModuleKey::Program {
                    path,
                    program: Arc::as_ptr(&compiled) as usize,
                };
                let module = module_for(ctx, key, kernel, || Ok(Image::Cubin(&compiled.image)))?;
                return module
                    .load_function(&entry)
                    .map(|f| {
                        // NVRTC's entry, parsed by the check above: its directives say.
                        let parsed = self.cache().nvrtc_entry.get();
                        let reqntid = parsed.and_then(|e| e.directives.reqntid).map(|d| d.dims);
                        (own_block(f, reqntid), 0)
                    })
                    .map_err(|e| self.missing(&entry, None, e));
            }
        };
        // Embedded with `include_bytes!` (`embedded_text`): UTF-8 when the macro read it, and
        // checked here again before any `str` method reads it.
        if let Some(bad) = variants
            .iter()
            .find(|v| std::str::from_utf8(v.text.as_bytes()).is_err())
        {
            return Err(Error::Incompatible {
                kernel,
                message: format!(
                    "`{}` is not UTF-8 text: it changed while the crate was compiled; build \
                     again",
                    bad.path
                ),
            });
        }
        let variant = choose_variant(ctx, variants, kernel)?;
        let index = variants
            .iter()
            .position(|v| std::ptr::eq(v, variant))
            .unwrap_or(0);
        let entry = self.entry.unwrap_or(self.name);
        let key = ModuleKey::Ptx {
            path: variant.path,
            text: variant.text,
        };
        let module = module_for(ctx, key, kernel, || {
            Ok(Image::Ptx(variant.path, variant.text))
        })?;
        module
            .load_function(entry)
            .map(|f| {
                // What `#[kernel]` read from this variant's PTX, else the entry's header.
                let reqntid = match variant.info.known {
                    true => variant.info.reqntid,
                    false => ptx::entry_reqntid(variant.text, entry),
                };
                (own_block(f, reqntid), index)
            })
            .map_err(|e| self.missing(entry, Some(variant), e))
    }

    /// The error of a `cuModuleGetFunction` that failed: for an entry the module does not have,
    /// [`Error::MissingKernel`] with the kernels it has (read from the PTX, on this error path
    /// only). `variant` is the PTX loaded; `None` for NVRTC's output, which was checked to have
    /// the entry (a miss is the driver's to explain).
    #[cold]
    pub(super) fn missing(
        &self,
        entry: &str,
        variant: Option<&PtxVariant>,
        e: cudarc::driver::DriverError,
    ) -> Error {
        let kernel = KernelName(Some(self.name));
        let path = variant.map_or(self.source.path(), |v| v.path);
        let listed = variant.and_then(|v| ptx::parse_entries(v.text).ok());
        match listed {
            Some(entries)
                if e.0 == crate::sys::cudaError_enum::CUDA_ERROR_NOT_FOUND
                    && !entries.iter().any(|x| x.name == entry) =>
            {
                let message = match ptx::resolve_entry(&entries, entry, &format!("`{path}`")) {
                    Err(Unresolved::Missing(m) | Unresolved::Ambiguous(m)) => m,
                    Ok(_) => format!("no kernel `{entry}` in `{path}`"),
                };
                Error::MissingKernel {
                    kernel,
                    message: format!(
                        "{message} (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND); declare the \
                         kernel with the name of one of its `.entry` lines"
                    ),
                }
            }
            _ => Error::driver("cuModuleGetFunction", kernel, e),
        }
    }

    /// Finds the entry in NVRTC's PTX (`lowered`, the name expression's lowered name, when
    /// there is one) and checks it against the declared signature.
    pub(super) fn check_nvrtc_output(
        &self,
        ptx_text: &str,
        lowered: Option<&str>,
    ) -> Result<String, Error> {
        let kernel = KernelName(Some(self.name));
        let path = self.source.path();
        let signature = |message: String| Error::Signature { kernel, message };
        let entries = ptx::parse_entries(ptx_text)
            .map_err(|e| signature(format!("cannot read NVRTC's PTX for {path}: {e}")))?;
        let wanted = lowered.or(self.entry).unwrap_or(self.name);
        // Overloads and template instances are told apart by the declared parameter count.
        let fits = |e: &ptx::Entry| e.params.len() == self.signature.len();
        let entry = ptx::resolve_entry_by(&entries, wanted, path, fits).map_err(|u| {
            signature(match u {
                Unresolved::Ambiguous(m) => m,
                Unresolved::Missing(m) => format!(
                    "{m} (a kernel is found by its name, `extern \"C\"` or C++; a C++ \
                     template instance by `name = \"kernel<128>\"` where the source \
                     instantiates it)"
                ),
            })
        })?;
        ptx::check_signature(self.signature, entry)
            .map_err(|m| signature(format!("{path} (compiled by NVRTC): {m}")))?;
        // A C++ kernel's types from its symbol, and what the PTX writes through: the checks
        // `#[kernel]` makes at compile time for a PTX file.
        let file = format!("NVRTC's PTX of {path}");
        ptx::check_cpp(self.signature, entry, &file, ptx_text).map_err(signature)?;
        // The directives do not depend on the compute capability: the first compile's serve.
        let _ = self.cache().nvrtc_entry.set(entry.clone());
        Ok(entry.name.clone())
    }
}

/// Serializes loading (the cold path). Launches never take it once their kernel is loaded.
static LOADER: Mutex<()> = Mutex::new(());

/// What a module is made of: PTX text (named for the linker's messages) or machine code.
enum Image<'a> {
    Ptx(&'a str, &'a str),
    Cubin(&'a [u8]),
}

/// A module's key besides its context: its file, and what of it was loaded.
#[derive(Clone, Copy)]
enum ModuleKey {
    /// PTX text: the whole file, or the module `#[kernel]` cut out of it for one entry (see
    /// `chevron_cuda_rules::ptx::ModuleIndex`). Equal texts are one module: the declarations
    /// that embed the whole file share it (and, with it, the file's `__device__` variables),
    /// as do those of one entry.
    Ptx {
        path: &'static str,
        text: &'static str,
    },
    /// CUDA C: the program NVRTC compiled for the declaration.
    Program { path: &'static str, program: usize },
}

impl ModuleKey {
    fn path(&self) -> &'static str {
        match self {
            ModuleKey::Ptx { path, .. } | ModuleKey::Program { path, .. } => path,
        }
    }
}

impl PartialEq for ModuleKey {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ModuleKey::Ptx { path, text }, ModuleKey::Ptx { path: p, text: t }) => {
                // The same embedded bytes are equal at once; else compared (on the cold path,
                // once per kernel and context).
                path == p && (std::ptr::eq(*text, *t) || text == t)
            }
            (
                ModuleKey::Program { path, program },
                ModuleKey::Program {
                    path: p,
                    program: q,
                },
            ) => path == p && program == q,
            _ => false,
        }
    }
}

/// Modules per (context, key): declarations that embed the same text of a file share one
/// module.
static MODULES: Mutex<Vec<(usize, ModuleKey, Arc<CudaModule>)>> = Mutex::new(Vec::new());

/// A panic elsewhere while a cache was locked leaves it consistent (entries are only pushed),
/// so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn module_for<'a>(
    ctx: &Arc<CudaContext>,
    key: ModuleKey,
    kernel: KernelName,
    image: impl FnOnce() -> Result<Image<'a>, Error>,
) -> Result<Arc<CudaModule>, Error> {
    let context = ctx.cu_ctx() as usize;
    if let Some((_, _, m)) = lock(&MODULES)
        .iter()
        .find(|(c, k, _)| *c == context && *k == key)
    {
        return Ok(m.clone());
    }
    let module = match image()? {
        Image::Ptx(path, text) => crate::nvrtc::link::load(ctx, path, text.to_owned(), kernel)?,
        Image::Cubin(cubin) => crate::nvrtc::link::load_image(ctx, cubin.to_vec(), kernel)?,
    };
    lock(&MODULES).push((context, key, module.clone()));
    Ok(module)
}

/// The variant of a kernel's PTX for `ctx`'s device (see [`target::choose`]); a variant whose
/// header cannot be read is left to the driver when no readable one fits.
/// `Error::Incompatible` when none can run on the device under this driver.
fn choose_variant<'v>(
    ctx: &Arc<CudaContext>,
    variants: &'v [PtxVariant],
    kernel: KernelName,
) -> Result<&'v PtxVariant, Error> {
    let headers: Vec<_> = variants.iter().map(|v| target::header(v.text)).collect();
    if headers.iter().all(Option::is_none) {
        return variants.first().ok_or(Error::Incompatible {
            kernel,
            message: "the kernel has no PTX variant".into(),
        });
    }
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?;
    let cc = Version::new(major.max(0) as u32, minor.max(0) as u32);
    let driver = nvrtc::driver_version();
    if let Some(i) = target::choose(&headers, cc, driver) {
        return Ok(&variants[i]);
    }
    if let Some(i) = headers.iter().position(Option::is_none) {
        return Ok(&variants[i]);
    }
    Err(Error::Incompatible {
        kernel,
        message: target::unfit_message(&headers, &format!("device {}", ctx.ordinal()), cc, driver),
    })
}

/// How many modules of files whose path ends with `path` are loaded in the context `ctx`: 1 after any number of
/// first launches racing in threads. For tests; not a public API.
#[doc(hidden)]
pub fn modules_loaded(ctx: &Arc<CudaContext>, path: &str) -> usize {
    let key = ctx.cu_ctx() as usize;
    lock(&MODULES)
        .iter()
        .filter(|(c, k, _)| *c == key && k.path().ends_with(path))
        .count()
}

/// `func`, its compiled-in block (its `.reqntid`) noted for the launches in its own block shape
/// (occupancy, co-residency and the explanations of a refused launch need the block, which the
/// config of such a launch does not hold).
fn own_block(func: CudaFunction, reqntid: Option<[u32; 3]>) -> CudaFunction {
    if let Some(dims) = reqntid {
        let _ = crate::launch::function::function_info(&func)
            .own_block
            .set(dims);
    }
    func
}
