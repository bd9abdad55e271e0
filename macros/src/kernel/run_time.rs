//! The warning of a `cuda = "…"` declaration that is checked only at run time (what the
//! compile-time nvcc could not do, and what to do about it).

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Ident};

use crate::kernel::nvcc::NvccOutcome;
use crate::warn::at_item;

/// The warning of a `cuda = "…"` declaration whose launch rules `#[kernel]` could not read at
/// compile time (nvcc missing or failing): they are then read from NVRTC's PTX at run time,
/// before the first launch. Nothing when nvcc ran and gave them, or with `CHEVRON_NVCC=0`
/// (run-time checks chosen).
pub fn run_time_only(
    kernel: &Ident,
    rel: &str,
    span: Span,
    outcome: NvccOutcome,
    attrs: &[Attribute],
) -> TokenStream {
    let (why, fix) = match outcome {
        NvccOutcome::Ran | NvccOutcome::Disabled => return TokenStream::new(),
        NvccOutcome::NotFound => (
            "nvcc was not found (on PATH, in $CUDA_PATH/bin or /usr/local/cuda/bin)".to_string(),
            "put nvcc on PATH or set CUDA_PATH to a CUDA toolkit",
        ),
        NvccOutcome::Failed => (
            format!("`nvcc -ptx -arch=sm_90 {rel}` failed"),
            "run that command to see why (NVRTC reports the same at the first launch)",
        ),
        NvccOutcome::NoEntry => (
            format!("nvcc's PTX of `{rel}` has no entry for `{kernel}`"),
            "check `name = \"…\"` against the kernel's symbol",
        ),
        NvccOutcome::Unmirrored(why) => (
            format!("the compile-time nvcc would not compile what NVRTC will: {why}"),
            "remove what NVRTC alone understands",
        ),
    };
    let note = format!(
        "`{kernel}` is checked against `{rel}` only at run time, before its first launch: \
         {why}; {fix}, or declare the kernel with `ptx = \"…\"` (PTX from `nvcc -ptx`, \
         checked when your crate compiles), or add `#[allow(deprecated)]` to the declaration \
         to accept run-time checks"
    );
    let allows: Vec<&Attribute> = attrs
        .iter()
        .filter(|a| a.path().is_ident("allow"))
        .collect();
    at_item("cuda_kernel_checked_at_run_time", span, &note, &allows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warn::{constant, NO_TRIGGER};
    use quote::quote;

    fn warning_of(outcome: NvccOutcome, attrs: &[Attribute]) -> String {
        let kernel = Ident::new("histogram", Span::call_site());
        run_time_only(
            &kernel,
            "kernels/histogram.cu",
            Span::call_site(),
            outcome,
            attrs,
        )
        .to_string()
    }

    #[test]
    fn run_time_only_warns_with_the_reason_and_the_fixes() {
        assert!(warning_of(NvccOutcome::Ran, &[]).is_empty());
        assert!(warning_of(NvccOutcome::Disabled, &[]).is_empty());
        for (outcome, why) in [
            (NvccOutcome::NotFound, "nvcc was not found"),
            (
                NvccOutcome::Failed,
                "`nvcc -ptx -arch=sm_90 kernels/histogram.cu` failed",
            ),
            (NvccOutcome::NoEntry, "has no entry for `histogram`"),
            (
                NvccOutcome::Unmirrored(
                    "NVRTC's option `-default-device` has no nvcc equivalent".into(),
                ),
                "would not compile what NVRTC will: NVRTC's option `-default-device`",
            ),
        ] {
            let out = warning_of(outcome.clone(), &[]);
            let file: syn::File = syn::parse2(out.parse().expect("tokens")).expect("items");
            let text = quote!(#file).to_string();
            assert!(text.contains("deprecated"), "{text}");
            assert!(
                text.contains(
                    "`histogram` is checked against `kernels/histogram.cu` only at run time"
                ),
                "{text}"
            );
            assert!(text.contains(why), "{outcome:?}: {text}");
            assert!(text.contains("`#[allow(deprecated)]`"), "{text}");
            assert!(
                text.contains("let _ = cuda_kernel_checked_at_run_time"),
                "{text}"
            );
        }
    }

    #[test]
    fn the_declarations_allows_reach_the_warning_and_nothing_else_does() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[allow(deprecated)]),
            syn::parse_quote!(#[doc = "docs"]),
            syn::parse_quote!(#[cfg(unix)]),
        ];
        let out = warning_of(NvccOutcome::NotFound, &attrs);
        assert!(out.starts_with("# [allow (deprecated)] const _"), "{out}");
        assert!(!out.contains("docs") && !out.contains("unix"), "{out}");
    }

    #[test]
    fn a_constant_is_deprecated_only_when_it_warns() {
        assert!(constant(NO_TRIGGER, true, "why").contains("#[deprecated(note = \"why\")]"));
        assert!(!constant(NO_TRIGGER, false, "").contains("deprecated"));
    }
}
