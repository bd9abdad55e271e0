//! Code generation for `#[kernel]`: a type named after the kernel whose associated functions
//! are `launch` and `function`, the kernel's cache, and the compile-time assertions rustc
//! checks for us.
//!
//! Why a type and not a module: a module's `use super::*` sees the enclosing module, not a
//! function body, so a declaration inside a body could not use the body's `use`s. A type and
//! its `impl` are items of the declaration's own scope: parameter types resolve exactly where
//! they are written. The type is a braced struct, so its name takes no place in the value
//! namespace (a parameter named like the kernel stays a plain binding).
//!
//! Hygiene: the user's parameter names are the generated functions' parameters, so every local
//! the expansion introduces (and every call from a body that also holds user parameters) is
//! spanned `Span::mixed_site()` or goes through `Self::`: user names cannot see them, nor
//! shadow them. The kernel's static lives inside a function with no user names in scope, since
//! a parameter named like a static would be read as a pattern of that static.

mod graph;
mod info;
mod occupancy;
mod params;
mod stub;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Ident, LitStr, Visibility};

use super::ast::{KernelDecl, KernelParam, ResolvedSource};
use info::info_items;
use occupancy::expand_occupancy;
#[cfg(test)]
pub use params::rustc_checks_all;
use params::{arg_param, param_check, signature_entry, spelling_guard};
pub use stub::{expand_stub, stub_checks};

/// The items a checked declaration expands to: the type, its `impl`s and the assertions.
pub fn expand_kernel(decl: &KernelDecl) -> TokenStream {
    let p = crate::krate::private();
    let KernelDecl {
        attrs,
        vis,
        ident,
        params,
        source,
        ..
    } = decl;
    let info = info_items(decl.info.as_ref(), decl.no_upstream_reads, decl.cooperative);
    // Where the kernel calls code its PTX does not hold, the rules resting on absence stay
    // quiet: the launch docs say which, and why.
    let unseen_doc = decl
        .info
        .as_ref()
        .map(|t| &t.messages[8])
        .filter(|m| !m.is_empty())
        .map(|m| {
            let text = format!(" Not checked: {m}.");
            quote!(#[doc = ""] #[doc = #text])
        });
    let name = LitStr::new(&super::ast::kernel_name(ident), ident.span());
    let (stream, config) = internal_names(params.iter().map(|q| &q.ident));

    let kernel = match source {
        ResolvedSource::Ptx {
            abs_path,
            entry,
            variants,
        } => {
            let path = LitStr::new(abs_path, Span::call_site());
            let entry = LitStr::new(entry, Span::call_site());
            if variants.is_empty() {
                quote!(#p::Kernel::ptx(#name, #entry, #path, #p::include_str!(#path)))
            } else {
                let all = std::iter::once(abs_path).chain(variants).map(|v| {
                    let v = LitStr::new(v, Span::call_site());
                    quote!(#p::PtxVariant { path: #v, text: #p::include_str!(#v) })
                });
                quote!(#p::Kernel::ptx_variants(#name, #entry, &[#(#all),*]))
            }
        }
        ResolvedSource::Cuda {
            abs_path,
            entry,
            program,
        } => {
            let path = LitStr::new(abs_path, Span::call_site());
            let entry = match entry {
                Some(e) => quote!(#p::Some(#e)),
                None => quote!(#p::None),
            };
            let sig = params.iter().map(|q| signature_entry(q, &p));
            if program.is_plain() {
                quote!(#p::Kernel::cuda(#name, #entry, #path, #p::include_str!(#path), &[#(#sig),*]))
            } else {
                let program = super::cuda::program_tokens(program, &p);
                quote!(#p::Kernel::cuda_program(
                    #name, #entry, #path, #p::include_str!(#path), &#program, &[#(#sig),*]
                ))
            }
        }
    };

    let scope = ItemAttrs::split(attrs);
    let impl_attrs = &scope.shared;
    let asserts = params.iter().map(|q| param_check(q, impl_attrs));
    let guard = spelling_guard(params, impl_attrs);
    let decls = params.iter().map(|q| {
        let (i, t) = (&q.ident, &q.ty);
        quote!(#i: #t)
    });
    let names: Vec<&Ident> = params.iter().map(|q| &q.ident).collect();
    let launcher = launcher(
        &p,
        quote!(#(#decls,)*),
        quote!(unsafe { Self::launch(self.stream, self.config, #(#names),*) }),
    );
    let decls = params.iter().map(|q| {
        let (i, t) = (&q.ident, &q.ty);
        quote!(#i: #t)
    });
    // Each argument goes with its parameter type's slot function (`Param::arg`), through the
    // same constructor as the parameter's check, so that a type that is no kernel parameter is
    // reported once, at the type; the runtime's generic `typed_launch` does the rest.
    let tuple = arg_tuple(params.iter());
    let launch_doc = launch_doc(&ident.to_string(), &stream, &config);
    let function_doc = format!(
        " The `CUfunction` of `{ident}` in `ctx`, loading its module the first time: for \
         occupancy queries or cudarc's own launch builder."
    );
    let ty = kernel_type(&p, &scope, vis, ident);
    let occupancy = expand_occupancy(&p, ident, impl_attrs, false);
    let typed = typed_impl(&p, ident, impl_attrs);

    let update = graph::graph_update(&p, ident, &name, params);

    quote! {
        #ty
        #occupancy
        #typed

        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #ident<'_> {
            /// The kernel's cache: its module and function per context, loaded on first use.
            #[doc(hidden)]
            #[inline]
            fn __chevron_kernel() -> &'static #p::Kernel {
                static KERNEL: #p::Kernel = #kernel;
                &KERNEL
            }

            #info

            #(#[doc = #launch_doc])*
            #unseen_doc
            #[allow(clippy::too_many_arguments)]
            #[inline]
            pub unsafe fn launch(
                #stream: &#p::CudaStream,
                #config: &#p::LaunchConfig<'_>,
                #(#decls,)*
            ) -> #p::Result<(), #p::Error> {
                // SAFETY: the parameters match the PTX entry (checked when the declaration was
                // compiled, or against NVRTC's output before the first launch); what the
                // kernel does with them is the caller's promise.
                unsafe {
                    #p::typed_launch::<Self, _, _>(
                        Self::__chevron_kernel(),
                        #stream,
                        #config,
                        #tuple,
                    )
                }
            }

            #launcher

            #update

            #[doc = #function_doc]
            #[allow(dead_code)]
            pub fn function(
                ctx: &#p::Arc<#p::CudaContext>,
            ) -> #p::Result<#p::CudaFunction, #p::Error> {
                Self::__chevron_kernel().function(ctx)
            }
        }

        #(#asserts)*
        #guard
    }
}

/// `(Param.arg(value), …)` of `params`, in order: the arguments of the runtime's generic
/// launch and updates (`ArgTuple`), each with its parameter type's slot function.
fn arg_tuple<'a>(params: impl Iterator<Item = &'a KernelParam>) -> TokenStream {
    let args = params.map(|q| {
        let (i, param) = (&q.ident, arg_param(q));
        quote!(#param.arg(#i))
    });
    quote!((#(#args,)*))
}

/// The user's attributes, split by where they go: all on the type, and the conditional and
/// lint attributes also on the `impl`s and assertions (a `#[cfg]` must remove them all).
struct ItemAttrs<'a> {
    all: Vec<&'a Attribute>,
    shared: Vec<&'a Attribute>,
    has_docs: bool,
}

impl<'a> ItemAttrs<'a> {
    fn split(attrs: impl IntoIterator<Item = &'a Attribute>) -> Self {
        let all: Vec<&Attribute> = attrs.into_iter().collect();
        const SHARED: [&str; 5] = ["cfg", "allow", "warn", "deny", "forbid"];
        let shared = all
            .iter()
            .copied()
            .filter(|a| {
                a.path()
                    .get_ident()
                    .is_some_and(|i| SHARED.iter().any(|s| i == s))
            })
            .collect();
        let has_docs = all.iter().any(|a| a.path().is_ident("doc"));
        Self {
            all,
            shared,
            has_docs,
        }
    }
}

/// The kernel's type: `struct saxpy<'a>`, with the declaration's docs, attributes and
/// visibility. Its value is what `<saxpy as TypedKernel>::__on(stream, &config)` returns for
/// `launch!`.
fn kernel_type(
    p: &TokenStream,
    attrs: &ItemAttrs<'_>,
    vis: &Visibility,
    ident: &Ident,
) -> TokenStream {
    let all = &attrs.all;
    let doc = (!attrs.has_docs).then(|| {
        let text = format!(
            " The CUDA kernel `{ident}` (`#[kernel]`): launch it with `launch!` or \
             [`{ident}::launch`]; [`{ident}::function`] gives its `CUfunction`."
        );
        quote!(#[doc = #text])
    });
    quote! {
        #(#all)*
        #doc
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident<'a> {
            stream: &'a #p::CudaStream,
            config: &'a #p::LaunchConfig<'a>,
        }
    }
}

/// What `launch!` calls: `<KERNEL as TypedKernel>::__on(stream, &config).launch_kernel(args…)`,
/// a method that takes exactly the kernel's parameters, so rustc counts and checks them as the
/// user wrote them. Its name is what rustc's messages show for a launch outside `unsafe` (``call to unsafe
/// function `saxpy::<'_>::launch_kernel` ``): a type cannot have both an associated function and
/// a method `launch`, so it says what it does instead.
fn launcher(p: &TokenStream, params: TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(clippy::too_many_arguments, unused_variables, dead_code)]
        #[must_use = #MUST_USE]
        pub unsafe fn launch_kernel(self, #params) -> #p::Result<(), #p::Error> {
            #body
        }
    }
}

/// What rustc adds to its warning for a launch whose `Result` is dropped (as the runtime's
/// `launched` says for `dyn` launches).
const MUST_USE: &str = "a kernel launch can fail: handle its error with `?` (or `match` on it); \
                        `let _ =` would hide a failed launch";

/// `TypedKernel`, through which `launch!` reaches the kernel: anything else in the kernel's
/// place gets that trait's message.
fn typed_impl(p: &TokenStream, ident: &Ident, impl_attrs: &[&Attribute]) -> TokenStream {
    quote! {
        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #p::TypedKernel for #ident<'_> {
            const INFO: #p::KernelInfo = Self::__CHEVRON_INFO;
            type Stream = #p::CudaStream;
            type On<'a> = #ident<'a>;
            #[inline]
            fn __on<'a>(
                stream: &'a #p::CudaStream,
                config: &'a #p::LaunchConfig<'a>,
            ) -> #ident<'a> {
                #ident { stream, config }
            }
        }
    }
}

/// An identifier of the expansion's own, invisible to the user's names and immune to them.
fn hygienic(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// `stream` and `config` for the generated `launch`'s first parameters (hygienic, so any name
/// works); renamed `__chevron_stream` … only so that the documentation does not show two
/// parameters of one name.
fn internal_names<'a>(params: impl Iterator<Item = &'a Ident> + Clone) -> (Ident, Ident) {
    let pick = |want: &str| {
        let taken = |name: &str| params.clone().any(|i| i == name);
        let mut name = want.to_string();
        let mut k = 0u32;
        while taken(&name) {
            name = if k == 0 {
                format!("__chevron_{want}")
            } else {
                format!("__chevron_{want}_{k}")
            };
            k += 1;
        }
        hygienic(&name)
    };
    (pick("stream"), pick("config"))
}

fn launch_doc(name: &str, stream: &Ident, config: &Ident) -> Vec<String> {
    let text = format!(
        "Launches `{name}` on `{stream}` with `{config}` (grid, block, shared memory and \
         attributes).\n\
         \n\
         The first launch in a CUDA context loads the kernel's module; later ones only read a \
         cached handle. Device buffers go through cudarc's `DevicePtr`/`DevicePtrMut`: this \
         launch waits for earlier writes to them on other streams, and later work on other \
         streams waits for it.\n\
         \n\
         # Safety\n\
         Nothing checks what the kernel does with its arguments: the grid in `{config}` and the \
         values passed must keep every access of the kernel inside its buffers.\n\
         \n\
         # Errors\n\
         Loading the module or finding the function (`Error::Driver`; for CUDA C also \
         `Error::NoNvrtc`, `Error::Compile`, `Error::Signature`), an invalid configuration \
         (`Error::InvalidConfig`) or a failed launch (`Error::Driver` and the specific \
         variants for cooperative and cluster launches)."
    );
    text.lines().map(|l| format!(" {l}")).collect()
}
