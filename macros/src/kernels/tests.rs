//! Codegen tests of `#[kernels]`: expand a module over checked-in kernels, parse the output,
//! assert on its items.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{File, Item};

fn kpath(file: &str) -> syn::LitStr {
    let path = format!("{}/../kernels/{file}", env!("CARGO_MANIFEST_DIR"));
    syn::LitStr::new(&path, proc_macro2::Span::call_site())
}

/// The module's items, the module's doc text and the whole expansion's text.
fn expand(args: TokenStream, item: TokenStream) -> (Vec<Item>, String, String) {
    let out = super::expand(args, item);
    let text = out.to_string();
    let file: File =
        syn::parse2(out).unwrap_or_else(|e| panic!("expansion does not parse: {e}\n{text}"));
    let [Item::Mod(m)] = &file.items[..] else {
        panic!("one module: {text}");
    };
    let docs = m
        .attrs
        .iter()
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => {
                Some(quote::ToTokens::to_token_stream(&nv.value).to_string())
            }
            _ => None,
        })
        .collect::<String>();
    (m.content.clone().expect("a body").1, docs, text)
}

fn structs(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Struct(s) => Some(s.ident.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_entry_becomes_one_kernel_and_the_file_is_embedded_once() {
    let path = kpath("templates.ptx");
    let (items, docs, text) = expand(
        quote!(ptx = #path),
        quote!(
            pub mod t {}
        ),
    );
    assert_eq!(
        structs(&items),
        ["gemm", "scale__float", "scale__double", "offset_add"]
    );
    // One `include_bytes!` for the module, whatever the number of kernels.
    assert_eq!(text.matches("include_bytes").count(), 1, "{text}");
    // The module's docs list each kernel with its C++ signature.
    assert!(
        docs.contains("scale<float>(float*, float, unsigned int)"),
        "{docs}"
    );
    assert!(!text.contains("compile_error"), "{text}");
}

#[test]
fn only_skip_and_hand_declarations_leave_the_other_names_alone() {
    let path = kpath("templates.ptx");
    let (items, _, text) = expand(
        quote!(ptx = #path, only = ["scale", "gemm<128>"], skip = ["scale<double>"]),
        quote!(
            mod t {
                #[kernel(name = "gemm<128>")]
                fn my_gemm(
                    a: &CudaSlice<f32>,
                    b: &CudaSlice<f32>,
                    c: &mut CudaSlice<f32>,
                    m: i32,
                    n: i32,
                    k: i32,
                );
            }
        ),
    );
    // `scale<float>` keeps the name it has among all four kernels; `gemm<128>` is the hand
    // declaration's.
    assert_eq!(structs(&items), ["my_gemm", "scale__float"]);
    assert!(!text.contains("compile_error"), "{text}");
}

#[test]
fn a_kernel_that_needs_the_user_is_an_error_and_no_item() {
    let path = kpath("kernels_needs.ptx");
    let (items, _, text) = expand(
        quote!(ptx = #path),
        quote!(
            mod t {}
        ),
    );
    // Only `plain` is typed, and `half2_scale` with the `f16` feature (on in the workspace's
    // tests, off in `cargo test -p chevron-cuda-macros`); each of the others is one error.
    if cfg!(feature = "f16") {
        assert_eq!(structs(&items), ["half2_scale", "plain"]);
        assert_eq!(text.matches("compile_error").count(), 4, "{text}");
    } else {
        assert_eq!(structs(&items), ["plain"]);
        assert_eq!(text.matches("compile_error").count(), 5, "{text}");
    }
}

/// `cuda = "…"`: the compile-time nvcc lists the kernels, each declared for NVRTC. Skipped
/// where no nvcc is found (as the `#[kernel]` nvcc tests are), unless
/// `CHEVRON_REQUIRE_CUDA_TOOLS=1`.
#[test]
fn a_cuda_file_is_listed_by_nvcc() {
    let path = kpath("port_hist.cu");
    let (items, _, text) = expand(
        quote!(cuda = #path),
        quote!(
            mod h {}
        ),
    );
    if text.contains("nvcc was not found") {
        assert!(
            std::env::var_os("CHEVRON_REQUIRE_CUDA_TOOLS").is_none(),
            "no nvcc found, and CHEVRON_REQUIRE_CUDA_TOOLS is set"
        );
        eprintln!("skipped: no nvcc");
        return;
    }
    assert_eq!(structs(&items), ["histogram", "bin_total"], "{text}");
    assert!(text.contains("Kernel :: cuda"), "{text}");
    assert_eq!(text.matches("include_bytes").count(), 1, "{text}");
}
