//! Every rule of `#[kernel]`: the declaration's shape, its parameters as written, and its
//! signature against the PTX file (the count here; whether each type fits is asserted in the
//! expansion, where rustc has resolved it). All problems are reported, not only the first.

use std::path::{Path, PathBuf};

use chevron_cuda_rules::fit::{read_info, InfoText};
use chevron_cuda_rules::ptx::{self};
use proc_macro2::Span;

use super::ast::{
    kernel_name, KernelArgs, KernelDecl, KernelItem, KernelParam, ResolvedSource, SourceKind,
};
use super::source;
use crate::report::Errors;

mod ptx_check;
mod shape;
mod types;
mod variants;

pub(super) use ptx_check::check_ptx;
pub(super) use shape::is_function_only;
use shape::{check_params, check_shape};
pub(super) use types::primitive_name;

/// Checks everything: the declaration, or, when anything is wrong (the errors are in `cx`), the
/// parameters that could be read, for the bounds and PTX assertions of the stub.
pub fn check(
    args: &KernelArgs,
    item: &KernelItem,
    cx: &mut Errors,
) -> Result<KernelDecl, Vec<KernelParam>> {
    check_shape(item, cx);
    let (mut params, params_ok) = check_params(item, cx);
    match check_source(args, item, params_ok, &mut params, cx) {
        Some((resolved, info)) if cx.is_empty() => Ok(KernelDecl {
            attrs: item.attrs.clone(),
            vis: item.vis.clone(),
            ident: item.sig.ident.clone(),
            params,
            source: resolved,
            info,
            no_upstream_reads: args.no_upstream_reads,
            cooperative: args.cooperative,
        }),
        _ => Err(params),
    }
}

/// Reads the kernel's file; for PTX, finds the entry and records each PTX parameter on the
/// declared one in its place (only when every parameter was read: `params_ok`).
fn check_source(
    args: &KernelArgs,
    item: &KernelItem,
    params_ok: bool,
    params: &mut [KernelParam],
    cx: &mut Errors,
) -> Option<(ResolvedSource, Option<InfoText>)> {
    let source = args.source.as_ref().or_else(|| {
        if args.invalid {
            // The source was written but not understood: that error is already reported.
            return None;
        }
        cx.error(
            args.span.unwrap_or_else(Span::call_site),
            "`#[kernel]` needs the kernel's code: `#[kernel(ptx = \"kernels/saxpy.ptx\")]` for \
             PTX from `nvcc -ptx`, or `#[kernel(cuda = \"kernels/saxpy.cu\")]` for CUDA C \
             compiled by NVRTC at run time (paths are relative to the crate root)",
        );
        None
    })?;
    let lit = &source.path;
    let rel = lit.value();
    if rel.is_empty() {
        // Reported by the parser; the crate root itself is no file to read.
        return None;
    }
    let abs = resolve(&rel);
    let text = match source::read_cached(&abs) {
        Ok(text) => text,
        Err(e @ source::ReadError::Io(_)) => {
            cx.error(lit.span(), e.message(&rel, &abs));
            return None;
        }
        Err(e) => {
            let what = match source.kind {
                SourceKind::Ptx => "a `.ptx` file",
                SourceKind::Cuda => "a `.cu` file",
            };
            let looked = if Path::new(&rel).is_absolute() {
                String::new()
            } else {
                format!(" (looked for {})", abs.display())
            };
            cx.error(
                lit.span(),
                format!("cannot use `{rel}`{looked}: {e}; give the path of {what}"),
            );
            return None;
        }
    };
    let abs_path = abs.to_string_lossy().into_owned();
    if !params_ok {
        return None;
    }
    Some(match source.kind {
        SourceKind::Cuda => {
            let program = super::cuda::cuda_program(args, &abs, &text, &base_dir(), cx);
            let info = nvcc_check(args, item, &rel, &abs, &text, &program, params, cx);
            let resolved = ResolvedSource::Cuda {
                abs_path,
                // A name expression's entry is its lowered name, known once NVRTC compiled it.
                entry: args
                    .name
                    .as_ref()
                    .map(|n| n.value())
                    .filter(|_| program.name_expression.is_none()),
                program,
            };
            (resolved, info)
        }
        SourceKind::Ptx => {
            if let Some((span, _)) = &args.options {
                cx.error(
                    *span,
                    "`options` are NVRTC's, for a `cuda = \"….cu\"` kernel; PTX is compiled \
                     already: give nvcc the options when making it",
                );
            }
            let entry = check_ptx(args, item, &abs, &text, params, cx)?;
            let info = launch_info(args, item, &rel, &abs, &text, &entry);
            let more = variants::check_variants(args, item, &entry, params, resolve, cx)?;
            let mut all = vec![(lit, &*text)];
            all.extend(
                source
                    .variants
                    .iter()
                    .zip(more.iter().map(|(_, t)| t.as_str())),
            );
            variants::check_isa(&all, crate::version::selected_cuda(), cx);
            let (info, infos) = if more.is_empty() {
                (info, Vec::new())
            } else {
                variants::combine_infos(args, item, &all, &more, info, &entry, cx)?
            };
            let resolved = ResolvedSource::Ptx {
                abs_path,
                text: std::sync::Arc::clone(&text),
                entry,
                variants: more.into_iter().map(|(abs, _)| abs).collect(),
                infos,
            };
            (resolved, info)
        }
    })
}

/// For a `cuda = "…"` kernel, where the build machine has `nvcc` (on `PATH`, or in
/// `$CUDA_PATH/bin`, `/usr/local/cuda/bin`): the PTX `nvcc -ptx` makes of the file is checked
/// exactly as a `ptx = "…"` file is (the entry, the parameter count, each parameter's width,
/// C++ type and write intent, into `params` for the expansion's assertions), and its launch
/// rules are returned, so that `launch!` checks them at compile time too. `None` (the runtime
/// then reads NVRTC's output before the first launch) when there is no nvcc, it fails, or
/// `CHEVRON_NVCC=0`. The CUDA C's errors are left to NVRTC at run time, as without nvcc: the
/// flags differ, and so could the verdict. An nvcc that runs past its time bound is an error
/// (see `nvcc.rs`). nvcc gets what NVRTC gets: see [`super::cuda::nvcc_extra`].
#[allow(clippy::too_many_arguments)]
fn nvcc_check(
    args: &KernelArgs,
    item: &KernelItem,
    rel: &str,
    abs: &Path,
    text: &str,
    program: &super::ast::CudaSpec,
    params: &mut [KernelParam],
    cx: &mut Errors,
) -> Option<InfoText> {
    if program.unmirrored.is_some() {
        // Said by the declaration's warning.
        return None;
    }
    let extra = super::cuda::nvcc_extra(program);
    let ptx_text = match super::nvcc::ptx(abs, text, &extra) {
        Ok(ptx) => ptx?,
        Err(message) => {
            let span = args
                .source
                .as_ref()
                .map_or_else(Span::call_site, |s| s.path.span());
            cx.error(span, message);
            return None;
        }
    };
    let entries = ptx::parse_entries(&ptx_text).ok()?;
    let file = format!("nvcc's PTX of {rel}");
    let entry = match &program.name_expression {
        Some(expression) => super::cuda::instance_entry(expression, &entries, &ptx_text)?,
        None => ptx_check::find_entry(
            args,
            item,
            &entries,
            &format!("nvcc's PTX of `{rel}`"),
            params,
            cx,
        )?,
    };
    let at = args
        .source
        .as_ref()
        .map_or_else(Span::call_site, |s| s.path.span());
    ptx_check::check_entry(item, entry, (&file, at), (None, &ptx_text), params, cx)?;
    Some(read_info(
        entry,
        &kernel_name(&item.sig.ident),
        &file,
        args.no_upstream_reads,
        args.cooperative,
    ))
}

/// What the checked entry's PTX fixes about its launches, for `launch!`'s checks and the
/// runtime's (`rel` is how messages name the file).
pub(super) fn launch_info(
    args: &KernelArgs,
    item: &KernelItem,
    rel: &str,
    abs: &Path,
    text: &str,
    entry: &str,
) -> Option<InfoText> {
    // Parsed once per file: this reads the cache `check_ptx` filled.
    let parsed = source::parse_ptx(abs, text);
    let found = parsed
        .as_ref()
        .as_ref()
        .ok()?
        .iter()
        .find(|e| e.name == entry)?;
    Some(read_info(
        found,
        &kernel_name(&item.sig.ident),
        rel,
        args.no_upstream_reads,
        args.cooperative,
    ))
}

/// The directory paths are relative to: the crate root (`CARGO_MANIFEST_DIR`).
///
/// `CHEVRON_MANIFEST_DIR` overrides it. The workspace sets it (`.cargo/config.toml`) for its ui
/// tests: trybuild compiles them as a generated crate under `target/tests/trybuild/`, whose
/// `CARGO_MANIFEST_DIR` does not hold the fixtures.
pub(crate) fn base_dir() -> PathBuf {
    std::env::var_os("CHEVRON_MANIFEST_DIR")
        .filter(|d| !d.is_empty())
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_default()
}

pub(crate) fn resolve(rel: &str) -> PathBuf {
    let path = Path::new(rel);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base_dir().join(path)
    };
    // A canonical path keys the module shared by declarations naming the same file.
    joined.canonicalize().unwrap_or(joined)
}
