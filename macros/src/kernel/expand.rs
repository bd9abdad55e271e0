//! Code generation for `#[kernel]`: the module with `launch` and `function`, the kernel's
//! cache, and the compile-time assertions rustc checks for us.
//!
//! Hygiene: the user's parameter names are the generated functions' parameters, so every local
//! the expansion introduces (and every call from a body that also holds user parameters) is
//! spanned `Span::mixed_site()`: user names cannot see them, nor shadow them. The kernel's
//! static lives inside a function with no user names in scope, since a parameter named like a
//! static would be read as a pattern of that static.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr};

use super::ast::{KernelDecl, KernelItem, KernelParam, ParamKind, ResolvedSource};
use super::check::expected;
use chevron_cuda_spec::ptx::Expected;

/// The module a checked declaration expands to.
pub fn expand_kernel(decl: &KernelDecl) -> TokenStream {
    let p = quote!(::chevron::__private);
    let KernelDecl {
        attrs,
        vis,
        ident,
        params,
        source,
    } = decl;
    let name = LitStr::new(&ident.to_string(), ident.span());
    let (stream, config) = internal_names(params.iter().map(|q| &q.ident));
    let func = hygienic("__chevron_func");
    let kernel_fn = hygienic("__chevron_kernel");
    let args = hygienic("__chevron_params");

    let kernel = match source {
        ResolvedSource::Ptx { abs_path, entry } => {
            let path = LitStr::new(abs_path, Span::call_site());
            let entry = LitStr::new(entry, Span::call_site());
            quote!(#p::Kernel::ptx(#name, #entry, #path, #p::include_str!(#path)))
        }
        ResolvedSource::Cuda { abs_path, entry } => {
            let path = LitStr::new(abs_path, Span::call_site());
            let entry = match entry {
                Some(e) => quote!(#p::Some(#e)),
                None => quote!(#p::None),
            };
            let sig = params.iter().map(|q| signature_entry(q, &p));
            quote!(#p::Kernel::cuda(#name, #entry, #path, #p::include_str!(#path), &[#(#sig),*]))
        }
    };

    let asserts = params.iter().map(assertions);
    let decls = params.iter().map(|q| {
        let (i, t) = (&q.ident, &q.ty);
        quote!(#i: #t)
    });
    let mut prepare = Vec::new();
    let mut pointers = Vec::new();
    for (k, q) in params.iter().enumerate() {
        let i = &q.ident;
        let ptr = hygienic(&format!("__chevron_ptr_{k}"));
        let sync = hygienic(&format!("__chevron_sync_{k}"));
        match q.kind {
            // The guards record this launch on the buffers' events when dropped, after the
            // launch is enqueued: cudarc's multi-stream ordering, as in its launch builder.
            ParamKind::BufferRead => {
                prepare.push(quote!(let (#ptr, #sync) = #p::DevicePtr::device_ptr(#i, #stream);));
                pointers.push(quote!(#p::param_ptr(&#ptr)));
            }
            ParamKind::BufferWrite => {
                prepare.push(
                    quote!(let (#ptr, #sync) = #p::DevicePtrMut::device_ptr_mut(#i, #stream);),
                );
                pointers.push(quote!(#p::param_ptr(&#ptr)));
            }
            _ => pointers.push(quote!(#p::param_ptr(&#i))),
        }
    }
    let names = params.iter().map(|q| &q.ident);
    let launch = hygienic("launch");
    let launcher = launcher(
        &p,
        ident,
        quote!(#(#decls,)*),
        quote!(unsafe { #launch(self.stream, self.config, #(#names),*) }),
    );
    let decls = params.iter().map(|q| {
        let (i, t) = (&q.ident, &q.ty);
        quote!(#i: #t)
    });
    let n = Literal::usize_unsuffixed(params.len());
    let launch_doc = launch_doc(&ident.to_string(), &stream, &config);
    let function_doc = format!(
        " The `CUfunction` of `{ident}` in `ctx`, loading its module the first time: for \
         occupancy queries or cudarc's own launch builder."
    );

    let update = graph_update(&p, ident, &name, params, &kernel_fn);

    quote! {
        #(#attrs)*
        #vis mod #ident {
            #[allow(unused_imports)]
            use super::*;

            /// The kernel's cache: its module and function per context, loaded on first use.
            #[inline]
            fn #kernel_fn() -> &'static #p::Kernel {
                static KERNEL: #p::Kernel = #kernel;
                &KERNEL
            }

            #(#asserts)*

            #(#[doc = #launch_doc])*
            #[allow(clippy::too_many_arguments)]
            #[inline]
            pub unsafe fn launch(
                #stream: &#p::CudaStream,
                #config: &#p::LaunchConfig<'_>,
                #(#decls,)*
            ) -> #p::Result<(), #p::Error> {
                let #func = #kernel_fn().get(#stream.context())?;
                #(#prepare)*
                let mut #args: [*mut #p::c_void; #n] = [#(#pointers),*];
                // SAFETY: the parameters match the PTX entry (checked when the declaration was
                // compiled, or against NVRTC's output before the first launch); what the
                // kernel does with them is the caller's promise.
                unsafe {
                    #p::runtime::launch_named(
                        #stream,
                        #func,
                        #p::Some(#name),
                        #config,
                        &mut #args,
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
                #kernel_fn().function(ctx)
            }
        }
    }
}

/// What `launch!` calls: `KERNEL::__on(stream, &config).launch(args…)`, a method that takes
/// exactly the kernel's parameters, so rustc counts and checks them as the user wrote them.
fn launcher(
    p: &TokenStream,
    kernel: &Ident,
    params: TokenStream,
    body: TokenStream,
) -> TokenStream {
    // Named after the kernel, so that a launch outside `unsafe` reads "call to unsafe function
    // `saxpy::<'_>::launch`".
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        pub struct #kernel<'a> {
            stream: &'a #p::CudaStream,
            config: &'a #p::LaunchConfig<'a>,
        }

        #[doc(hidden)]
        #[inline]
        pub fn __on<'a>(
            stream: &'a #p::CudaStream,
            config: &'a #p::LaunchConfig<'a>,
        ) -> #kernel<'a> {
            #kernel { stream, config }
        }

        impl #kernel<'_> {
            #[doc(hidden)]
            #[inline]
            #[allow(clippy::too_many_arguments, unused_variables)]
            pub unsafe fn launch(self, #params) -> #p::Result<(), #p::Error> {
                #body
            }
        }
    }
}

/// `update`: sets the arguments of a node of this kernel captured in a graph, for the following
/// replays. It takes the kernel's parameters as declared and goes through `Graph::set_params`,
/// which checks that the node is of this graph and this kernel.
fn graph_update(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
    kernel_fn: &Ident,
) -> TokenStream {
    let taken = |want: &str| params.iter().any(|q| q.ident == want);
    let pick = |want: &str| {
        let mut name = want.to_string();
        while taken(&name) {
            name = format!("__chevron_{name}");
        }
        hygienic(&name)
    };
    let (graph, node) = (pick("graph"), pick("node"));
    let stream = hygienic("__chevron_stream");
    let func = hygienic("__chevron_func");
    let args = hygienic("__chevron_params");
    let mut decls = Vec::new();
    let mut prepare = Vec::new();
    let mut pointers = Vec::new();
    for (k, q) in params.iter().enumerate() {
        let (i, ty) = (&q.ident, &q.ty);
        decls.push(quote!(#i: #ty));
        let ptr = hygienic(&format!("__chevron_ptr_{k}"));
        let sync = hygienic(&format!("__chevron_sync_{k}"));
        match q.kind {
            // Orders the buffer after its earlier uses on other streams (cudarc's events), on
            // the stream the next replay follows.
            ParamKind::BufferRead => {
                prepare.push(quote!(let (#ptr, #sync) = #p::DevicePtr::device_ptr(#i, &#stream);));
                pointers.push(quote!(#p::param_ptr(&#ptr)));
            }
            ParamKind::BufferWrite => {
                prepare.push(
                    quote!(let (#ptr, #sync) = #p::DevicePtrMut::device_ptr_mut(#i, &#stream);),
                );
                pointers.push(quote!(#p::param_ptr(&#ptr)));
            }
            _ => pointers.push(quote!(#p::param_ptr(&#i))),
        }
    }
    let n = Literal::usize_unsuffixed(params.len());
    let doc = format!(
        " Sets the arguments of `{kernel}`'s node `{node}` in `{graph}` for the following \
         replays, without instantiating the graph again (`cuGraphExecKernelNodeSetParams`); the \
         node's grid, block and attributes stay as captured. Allocates nothing.\n\n # Safety\n \
         As for `launch`: the captured grid and these values must keep every access of the \
         kernel inside its buffers, and a buffer given here must stay alive, and untouched by \
         the host and other streams, while the graph may replay with it: until the node is \
         updated again or the graph is dropped (which waits for the last replay). Unlike the \
         buffers of the capture, these are not borrowed for the graph's lifetime, so that one \
         buffer can be given to many updates.\n\n # Errors\n `Error::Graph` when `{node}` is \
         of another graph or another kernel; `Error::Driver` when the driver rejects the update."
    );
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, dead_code)]
        #[inline]
        pub unsafe fn update(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#decls,)*
        ) -> #p::Result<(), #p::Error> {
            let #func = #kernel_fn().get(#graph.context())?;
            let #stream = ::core::clone::Clone::clone(#graph.order_stream());
            #(#prepare)*
            let mut #args: [*mut #p::c_void; #n] = [#(#pointers),*];
            // SAFETY: the parameters match the PTX entry, as for `launch`; the rest is the
            // caller's promise.
            unsafe { #graph.set_params(#node, #func, #p::Some(#name), &mut #args) }
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

/// Compile-time assertions for by-value types: `DeviceRepr`, and the size the PTX expects.
fn assertions(q: &KernelParam) -> TokenStream {
    if q.kind != ParamKind::Value {
        return TokenStream::new();
    }
    let ty = &q.ty;
    let span = ty.span();
    // Every token on the type, so rustc's error points at the parameter's type.
    let p = quote_spanned!(span=> ::chevron::__private);
    let mut out = quote_spanned! {span=>
        const _: () = #p::assert_kernel_value::<#ty>();
    };
    if let Some(size) = &q.size {
        let bytes = Literal::u64_unsuffixed(size.bytes);
        let msg = format!(
            "`{}` must be {} bytes to match the kernel's parameter ({})",
            q.ty_text, size.bytes, size.ptx_param
        )
        .replace(['{', '}'], "");
        out.extend(quote_spanned! {span=>
            const _: () = #p::assert!(#p::size_of::<#ty>() == #bytes, #msg);
        });
    }
    out
}

/// One `ParamSig` of the run-time signature check (`cuda = "…"`).
fn signature_entry(q: &KernelParam, p: &TokenStream) -> TokenStream {
    let name = q.ident.to_string();
    let ty_text = &q.ty_text;
    let ty = &q.ty;
    let expected = match expected(q.kind) {
        Expected::Int(b) => quote!(#p::Expected::Int(#b)),
        Expected::Float(b) => quote!(#p::Expected::Float(#b)),
        Expected::Bool => quote!(#p::Expected::Bool),
        Expected::Pointer => quote!(#p::Expected::Pointer),
        Expected::Value(_) => {
            quote!(#p::Expected::Value(#p::Some(#p::size_of::<#ty>() as u64)))
        }
    };
    quote!(#p::ParamSig { name: #name, ty: #ty_text, expected: #expected })
}

/// What a rejected declaration expands to: the same names with the parameters as written, so
/// call sites type-check and only the real errors show.
pub fn expand_stub(item: &KernelItem) -> TokenStream {
    let p = quote!(::chevron::__private);
    let KernelItem {
        attrs, vis, sig, ..
    } = item;
    // Reported at the declaration; on the module rustc would add "cannot be used on modules".
    let attrs = attrs.iter().filter(|a| !super::check::is_function_only(a));
    let ident = &sig.ident;
    let typed = super::ast::typed_inputs(sig);
    let names = typed.iter().filter_map(|t| match &*t.pat {
        syn::Pat::Ident(i) => Some(&i.ident),
        _ => None,
    });
    let (stream, config) = internal_names(names.collect::<Vec<_>>().into_iter());
    let (impl_generics, _, where_clause) = sig.generics.split_for_impl();
    let stub_launcher = if sig.generics.params.is_empty() {
        launcher(&p, ident, quote!(#(#typed,)*), quote!(loop {}))
    } else {
        TokenStream::new()
    };
    quote! {
        #(#attrs)*
        #vis mod #ident {
            #[allow(unused_imports)]
            use super::*;

            /// Not generated: `#[kernel]` reported an error for this declaration.
            #[allow(unused_variables, clippy::too_many_arguments)]
            pub unsafe fn launch #impl_generics (
                #stream: &#p::CudaStream,
                #config: &#p::LaunchConfig<'_>,
                #(#typed,)*
            ) -> #p::Result<(), #p::Error> #where_clause {
                loop {}
            }

            #stub_launcher

            /// Not generated: `#[kernel]` reported an error for this declaration.
            #[allow(unused_variables)]
            pub fn function(
                ctx: &#p::Arc<#p::CudaContext>,
            ) -> #p::Result<#p::CudaFunction, #p::Error> {
                loop {}
            }
        }
    }
}
